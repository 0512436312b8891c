import GatewayCommandLine
import GatewayCore
import GatewayWire
import Testing

@Suite("pos-lane: Bluetooth commands and simulated readers")
struct BluetoothLaneCommandTests {
    @Test("bt- commands parse; malformed ones say what was expected")
    func parse() throws {
        #expect(try LaneCommand.parse("bt-scan") == .bluetooth(.scan(seconds: 1)))
        #expect(try LaneCommand.parse("bt-scan 2.5") == .bluetooth(.scan(seconds: 2.5)))
        #expect(try LaneCommand.parse("bt-proximity") == .bluetooth(.proximity))
        #expect(try LaneCommand.parse("bt-connect wpc3-0001") == .bluetooth(.connect(serial: "WPC3-0001")))
        #expect(try LaneCommand.parse("bt-power WPC3-0001 off") == .bluetooth(.power(serial: "WPC3-0001", on: false)))
        #expect(try LaneCommand.parse("bt-range WPC3-0001 out") == .bluetooth(.range(serial: "WPC3-0001", inRange: false)))
        #expect(try LaneCommand.parse("bt-battery WPC3-0001 0.04") == .bluetooth(.battery(serial: "WPC3-0001", level: 0.04)))
        #expect(try LaneCommand.parse("bt-hours 24") == .bluetooth(.hours(24)))
        #expect(try LaneCommand.parse("bt-card WPC3-0001 amex 0005") == .bluetooth(.card(serial: "WPC3-0001", brand: "amex", last4: "0005")))
        #expect(try LaneCommand.parse("bt-disconnect") == .bluetooth(.disconnect))
        #expect(try LaneCommand.parse("bt-cancel-reconnect") == .bluetooth(.cancelReconnect))
        for (line, usage) in [
            ("bt-scan 0", "bt-scan [SECONDS]"), ("bt-connect", "bt-connect SERIAL"), ("bt-power WPC3-0001 maybe", "bt-power SERIAL on|off"),
            ("bt-battery WPC3-0001 1.5", "bt-battery SERIAL LEVEL"), ("bt-hours -1", "bt-hours HOURS"), ("bt-card WPC3-0001 visa 42", "bt-card SERIAL"),
        ] {
            do {
                _ = try LaneCommand.parse(line)
                Issue.record("\(line) parsed")
            } catch {
                #expect(error.message.contains(usage), "\(line): \(error.message)")
            }
        }
        do {
            _ = try LaneCommand.parse("bt-teleport")
            Issue.record("bt-teleport parsed")
        } catch {
            #expect(error.message.contains("bt-scan"))
        }
    }

    @Test("--bluetooth-readers names models and serials; an unknown model is refused by name")
    func readersOption() throws {
        let base = ["--secret-key", "sk_x"]
        let configuration = try #require(try LaneConfiguration.parse(arguments: base + ["--bluetooth-readers", "wisepad3:wpc3-1,m2:STRM2-2,chipper2x:CHB-3"], environment: [:]))
        #expect(configuration.bluetoothReaders == [
            SimulatedBluetoothReaderSpec(deviceType: .bbposWisepad3, serialNumber: "WPC3-1"),
            SimulatedBluetoothReaderSpec(deviceType: .stripeM2, serialNumber: "STRM2-2"),
            SimulatedBluetoothReaderSpec(deviceType: .bbposChipper2xBt, serialNumber: "CHB-3"),
        ])
        do {
            _ = try LaneConfiguration.parse(arguments: base + ["--bluetooth-readers", "wisepos:X"], environment: [:])
            Issue.record("an unknown model was accepted")
        } catch {
            #expect("\(error)".contains("wisepos:X"))
        }
    }

    @Test("history rows of a Bluetooth reader's ended link show why, and whether its device was reconnecting")
    func historyRendering() {
        var entry = ReaderGatewayV1.OwnershipHistoryEntry()
        entry.reason = .mobileLinkEnded
        entry.mobileDisconnectReason = .bluetoothSignalLost
        entry.linkReconnecting = true
        let table = AdminRendering.table([entry])
        #expect(table.rows.first?.contains("mobile_link_ended: bluetooth_signal_lost, reconnecting") == true)
        entry.mobileDisconnectReason = .poweredOff
        entry.linkReconnecting = false
        #expect(AdminRendering.table([entry]).rows.first?.contains("mobile_link_ended: powered_off") == true)
        let json = AdminRendering.json(entry).description
        #expect(json.contains("\"mobile_disconnect_reason\": \"powered_off\""), "\(json)")
        #expect(json.contains("\"link_reconnecting\": false"), "\(json)")
    }
}
