import GatewayCommandLine
import GatewayCore
import GatewayWire
import Testing

private func window(_ start: UInt32, _ end: UInt32, _ offset: Int32) -> ReaderGatewayV1.InstallWindow {
    var window = ReaderGatewayV1.InstallWindow()
    window.startMinute = start
    window.endMinute = end
    window.utcOffsetMinutes = offset
    return window
}

@Suite("gatewayctl locations update: the install window's command lines, table and JSON")
struct GatewayCtlInstallWindowTests {
    @Test func installWindowCommandsParse() throws {
        #expect(try parseCtl(["locations", "update", "tml_1", "--install-window", "02:00-05:00+01:00"]) == .setInstallWindow(locationID: "tml_1", window: window(120, 300, 60)))
        #expect(try parseCtl(["locations", "update", "tml_1", "--install-window", "22:30-01:15-04:30"]) == .setInstallWindow(locationID: "tml_1", window: window(1350, 75, -270)))
        #expect(try parseCtl(["locations", "update", "tml_1", "--install-window", "02:00-05:00Z"]) == .setInstallWindow(locationID: "tml_1", window: window(120, 300, 0)))
        #expect(try parseCtl(["locations", "update", "tml_1", "--install-window", "02:00-05:00"]) == .setInstallWindow(locationID: "tml_1", window: window(120, 300, 0)))
        #expect(try parseCtl(["locations", "update", "tml_1", "--clear-install-window"]) == .setInstallWindow(locationID: "tml_1", window: nil))
    }

    @Test func installWindowUsageErrorsSayWhatToFix() {
        let cases: [([String], String)] = [
            (["locations", "update", "--install-window", "02:00-05:00"], "LOCATION"),
            (["locations", "update", "tml_1"], "--install-window START-END"),
            (["locations", "update", "tml_1", "--install-window", "02:00-05:00", "--clear-install-window"], "not both"),
            (["locations", "update", "tml_1", "extra", "--clear-install-window"], "unexpected argument"),
        ] + ["2:00-5:00", "02:00", "24:00-05:00", "02:60-05:00", "02:00-05:00+1", "02:00-05:00+01:00x", "０2:00-05:00"].map {
            (["locations", "update", "tml_1", "--install-window", $0], "02:00-05:00+01:00")
        }
        expectRefused(cases)
    }

    @Test func locationsShowTheirWindow() {
        var paris = ReaderGatewayV1.Location()
        paris.id = "tml_p"
        paris.displayName = "Paris"
        paris.installWindow = window(120, 300, 60)
        var open = ReaderGatewayV1.Location()
        open.id = "tml_o"
        open.displayName = "Open"
        let table = AdminRendering.table([paris, open]).description
        #expect(table.contains("INSTALL WINDOW"), "\(table)")
        #expect(table.contains("02:00-05:00+01:00"), "\(table)")
        let json = AdminRendering.json(paris).description
        #expect(json.contains("\"install_window\""), "\(json)")
        #expect(json.contains("\"text\":\"02:00-05:00+01:00\"") || json.contains("\"text\": \"02:00-05:00+01:00\""), "\(json)")
        #expect(json.contains("\"utc_offset_minutes\":60") || json.contains("\"utc_offset_minutes\": 60"), "\(json)")
        #expect(!AdminRendering.json(open).description.contains("install_window"))
        #expect(InstallWindowText.show(window(1350, 75, -270)) == "22:30-01:15-04:30")
    }
}
