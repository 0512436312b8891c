import GatewayCommandLine
import GatewayCore
import GatewayWire
import Testing

@Suite("gatewayctl updates: command lines and the fleet view's columns")
struct GatewayCtlUpdatesTests {
    @Test func updatesCommandsParse() throws {
        #expect(try parseCtl(["updates", "list"]) == .listUpdates(deviceType: .unspecified))
        #expect(try parseCtl(["updates"]) == .listUpdates(deviceType: .unspecified))
        #expect(try parseCtl(["updates", "list", "--device-type", "mobile"]) == .listUpdates(deviceType: .mobile))
        var expected = ReaderGatewayV1.ReaderSoftwareUpdate()
        expected.deviceType = .mobile
        expected.version = "2.4.0"
        expected.components = ["firmware", "keys"]
        expected.durationEstimate = .oneToTwoMinutes
        expected.requiredAtUnixMs = 1_893_456_000_000
        #expect(try parseCtl([
            "updates", "add", "--device-type", "mobile", "--version", "2.4.0", "--components", "Firmware, keys",
            "--duration", "one_to_two_minutes", "--required-at", "2030-01-01T00:00:00Z",
        ]) == .addUpdate(expected))
        expected.requiredAtUnixMs = 0
        expected.components = []
        expected.durationEstimate = .unspecified
        #expect(try parseCtl(["updates", "add", "--device-type", "mobile", "--version", "2.4.0", "--required-at", "never"]) == .addUpdate(expected))
        #expect(try parseCtl(["updates", "remove", "--device-type", "tap_to_pay", "--version", "1.0"]) == .removeUpdate(deviceType: .tapToPay, version: "1.0"))
    }

    @Test func updatesUsageErrorsSayWhatIsMissing() {
        let cases: [([String], String)] = [
            (["updates", "add", "--version", "1.0"], "--device-type"),
            (["updates", "add", "--device-type", "mobile"], "--version"),
            (["updates", "add", "--device-type", "wisepad", "--version", "1.0"], "device-type"),
            (["updates", "add", "--device-type", "mobile", "--version", "1.0", "--duration", "soon"], "one_to_two_minutes"),
            (["updates", "add", "--device-type", "mobile", "--version", "1.0", "--required-at", "tomorrow"], "RFC 3339"),
            (["updates", "purge"], "updates list, updates add, updates remove"),
            (["updates", "list", "extra"], "unexpected argument"),
        ]
        expectRefused(cases)
    }

    @Test func readersTableShowsHolderBatteryVersionAndPendingUpdate() {
        var mobile = ReaderGatewayV1.Reader()
        mobile.id = "tmr_m"
        mobile.deviceType = .mobile
        mobile.softwareVersion = "1.0.0"
        mobile.batteryLevel = 0.42
        var update = ReaderGatewayV1.ReaderSoftwareUpdate()
        update.version = "1.1.0"
        update.required = true
        mobile.availableUpdate = update
        var smart = ReaderGatewayV1.Reader()
        smart.id = "tmr_s"
        smart.deviceType = .simulatedWiseposE
        var owner = ReaderGatewayV1.ReaderOwner()
        owner.sessionID = "sess_1"
        owner.laneLabel = "Floor 2"
        owner.posDeviceID = "phone-7"
        let table = AdminRendering.table([mobile, smart], holders: ["tmr_m": owner]).description
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[0].contains("HOLDER") && lines[0].contains("BATTERY") && lines[0].contains("VERSION") && lines[0].contains("UPDATE"), "\(table)")
        let mobileRow = lines.first { $0.hasPrefix("tmr_m") } ?? ""
        #expect(mobileRow.contains("Floor 2 (phone-7)") && mobileRow.contains("42%") && mobileRow.contains("1.1.0 (required)"), "\(table)")
        let smartRow = lines.first { $0.hasPrefix("tmr_s") } ?? ""
        #expect(smartRow.contains("simulated_wisepos_e"), "\(table)")
        let json = AdminRendering.json(mobile, holder: owner).description
        #expect(json.contains("\"holder\"") && json.contains("\"available_update\"") && json.contains("\"1.1.0\""), "\(json)")
    }
}

@Suite("gatewayctl events: command lines and rendering")
struct GatewayCtlEventsCommandTests {
    @Test func eventsCommandsParse() throws {
        #expect(try parseCtl(["events"]) == .listEvents(.init()))
        var expected = ReaderGatewayV1.ListEventsRequest()
        expected.types = ["reader.offline", "reader.ownership.lost"]
        expected.readerID = "tmr_1"
        expected.locationID = "tml_1"
        expected.createdFromUnixMs = 1_893_456_000_000
        expected.createdBeforeUnixMs = 1_893_459_600_000
        expected.limit = 20
        expected.pageToken = "ZXYxOjQy"
        #expect(try parseCtl([
            "events", "list", "--type", "reader.offline, reader.ownership.lost", "--reader", "tmr_1", "--location", "tml_1",
            "--since", "2030-01-01T00:00:00Z", "--until", "2030-01-01T01:00:00Z", "--limit", "20", "--page-token", "ZXYxOjQy",
        ]) == .listEvents(expected))
        #expect(try parseCtl(["events", "get", "evt_1"]) == .getEvent(eventID: "evt_1"))
    }

    @Test func eventsUsageErrorsSayWhatIsMissing() {
        let cases: [([String], String)] = [
            (["events", "get"], "needs an EVENT id"),
            (["events", "get", "evt_1", "evt_2"], "unexpected argument"),
            (["events", "tail"], "events list, events get"),
            (["events", "list", "--since", "monday"], "RFC 3339"),
            (["events", "list", "--limit", "5000"], "limit"),
        ]
        expectRefused(cases)
    }

    @Test func eventsRenderAsTableAndJSON() {
        var event = ReaderGatewayV1.Event()
        event.id = "evt_1"
        event.type = "reader.online"
        event.createdUnixMs = 1_893_456_000_000
        event.readerID = "tmr_1"
        event.objectJson = #"{"object": "reader", "status": "online", "battery": 0.5, "ownership": null, "in_use": false, "generation": 3}"#
        var page = ReaderGatewayV1.ListEventsResponse()
        page.events = [event]
        page.nextPageToken = "ZXYxOjE"
        let text = AdminRendering.page(page)
        #expect(text.contains("2030-01-01T00:00:00Z") && text.contains("reader.online") && text.hasSuffix("next page: --page-token ZXYxOjE"), "\(text)")
        let json = AdminRendering.json(page).description
        #expect(json.contains("\"status\": \"online\"") && json.contains("\"generation\": 3") && json.contains("\"in_use\": false"), "\(json)")
        #expect(json.contains("\"ownership\": null") && json.contains("\"location_id\": null") && json.contains("\"battery\": 0.5"), "\(json)")
        event.objectJson = "not json"
        #expect(AdminRendering.json(event).description.contains("\"object\": \"not json\""))
    }
}
