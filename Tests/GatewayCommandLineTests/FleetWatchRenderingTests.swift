import GatewayCommandLine
import GatewayCore
import GatewayWire
import Testing

@Suite("gatewayctl watch: its command line and its lines")
struct FleetWatchRenderingTests {
    static func held() -> ReaderGatewayV1.FleetReader {
        var reader = ReaderGatewayV1.Reader()
        reader.id = "tmr_1"
        reader.label = "Counter 1"
        reader.serialNumber = "WSB-1"
        reader.networkStatus = .online
        reader.activity = .collecting
        reader.batteryLevel = 0.5
        reader.softwareVersion = "2.20.1.0"
        var holder = ReaderGatewayV1.ReaderOwner()
        holder.laneLabel = "Lane A"
        holder.posDeviceID = "pos-a"
        holder.sessionID = "sess_1"
        var fleet = ReaderGatewayV1.FleetReader()
        fleet.reader = reader
        fleet.holder = holder
        fleet.holderSinceUnixMs = 1_795_000_000_000
        fleet.inTransaction = true
        fleet.generation = 4
        return fleet
    }

    @Test func parses() throws {
        let environment = ["GATEWAYCTL_SECRET_KEY": "sk_test"]
        #expect(try CtlInvocation.parse(arguments: ["watch"], environment: environment)?.command == .watch(locationID: ""))
        #expect(try CtlInvocation.parse(arguments: ["watch", "--location", "tml_1"], environment: environment)?.command == .watch(locationID: "tml_1"))
        #expect(throws: OptionsError.self) { try CtlInvocation.parse(arguments: ["watch", "extra"], environment: environment) }
        #expect(CtlCommand.usage.contains("watch [--location LOC]"))
    }

    @Test func textLines() {
        var event = ReaderGatewayV1.WatchFleetEvent()
        event.event = .readerChanged(Self.held())
        #expect(FleetWatchRendering.lines(event, json: false) == [
            #"changed tmr_1 "Counter 1" serial=WSB-1 online collecting holder="Lane A" pos=pos-a since=2026-11-18T11:06:40Z in_transaction=true battery=0.5 version=2.20.1.0"#,
        ])
        var snapshot = ReaderGatewayV1.FleetSnapshot()
        snapshot.complete = true
        event.event = .snapshot(snapshot)
        #expect(FleetWatchRendering.lines(event, json: false) == ["snapshot complete; watching"])
        event.event = .readerRemoved("tmr_9")
        #expect(FleetWatchRendering.lines(event, json: false) == ["removed tmr_9"])
    }

    @Test func jsonLinesAreOneObjectEach() {
        var event = ReaderGatewayV1.WatchFleetEvent()
        event.atUnixMs = 1_795_000_000_000
        event.event = .readerChanged(Self.held())
        let lines = FleetWatchRendering.lines(event, json: true)
        #expect(lines.count == 1)
        #expect(!lines[0].contains("\n"))
        #expect(lines[0].hasPrefix(#"{"at":"2026-11-18T11:06:40Z","event":"changed","generation":4,"holder":{"lane_label":"Lane A","pos_device_id":"pos-a","session_id":"sess_1"},"holder_since":"2026-11-18T11:06:40Z","in_transaction":true,"reader":{"#))
    }
}
