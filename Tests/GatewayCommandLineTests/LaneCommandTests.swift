import GatewayCommandLine
import GatewayCore
import Testing

@Suite("pos-lane: stdin commands and options")
struct LaneCommandTests {
    @Test("commands parse", arguments: [
        ("discover", LaneCommand.discover(filter: nil)),
        ("discover --serial WSC-1", .discover(filter: .serialNumber("WSC-1"))),
        ("discover --reader-id tmr_1", .discover(filter: .readerID("tmr_1"))),
        ("easy-connect --serial WSC-1", .easyConnect(filter: .serialNumber("WSC-1"), failIfInUse: false)),
        ("easy-connect --reader-id tmr_1 --fail-if-in-use", .easyConnect(filter: .readerID("tmr_1"), failIfInUse: true)),
        ("easy-connect --fail-if-in-use --serial WSC-1", .easyConnect(filter: .serialNumber("WSC-1"), failIfInUse: true)),
        ("connect tmr_1", .connect(readerID: "tmr_1", failIfInUse: false)),
        ("connect tmr_1 --fail-if-in-use", .connect(readerID: "tmr_1", failIfInUse: true)),
        ("collect 1999", .collect(amount: 1_999)),
        ("collect 19.99", .collect(amount: 1_999)),
        ("display \"Large coffee\" 450", .display(item: "Large coffee", amount: 450)),
        ("confirm", .confirm), ("cancel", .cancel), ("clear", .clear), ("reboot", .reboot), ("disconnect", .disconnect), ("quit", .quit),
        ("tap-to-pay", .tapToPay(model: nil, osVersion: nil)), ("tap-to-pay iPhone10,6 17.4", .tapToPay(model: "iPhone10,6", osVersion: "17.4")),
        ("tap", .tap(brand: "visa", last4: "4242")), ("tap mastercard 4444", .tap(brand: "mastercard", last4: "4444")),
        ("install-update", .installUpdate), ("cancel-update", .cancelUpdate),
        ("background", .background), ("foreground", .foreground),
    ])
    func parses(line: String, expected: LaneCommand) throws {
        #expect(try LaneCommand.parse(line) == expected)
    }

    @Test("bad commands say what was expected", arguments: [
        "discover tmr_1", "discover --serial", "discover --serial A --reader-id B", "easy-connect", "easy-connect tmr_1",
        "easy-connect --serial", "easy-connect --serial A --force", "easy-connect --serial A --reader-id B",
        "connect", "connect a b", "connect a --force", "collect", "collect 1.5", "collect -3", "display coffee", "fly", "tap-to-pay iPhone15,2", "tap visa", "tap visa 42x2", "background now", "foreground 1"])
    func rejects(line: String) {
        #expect(throws: LaneCommand.ParseError.self) { try LaneCommand.parse(line) }
    }

    @Test("options: a token or a secret key is required")
    func options() throws {
        let lane = try #require(try LaneConfiguration.parse(arguments: ["--connection-token", "pst_1", "--lane", "Lane 3", "--location", "tml_1"], environment: [:]))
        #expect(lane.connectionToken == "pst_1")
        #expect(lane.laneLabel == "Lane 3")
        #expect(lane.locationID == "tml_1")
        #expect(try LaneConfiguration.parse(arguments: [], environment: ["POS_LANE_SECRET_KEY": "sk_1"])?.secretKey == "sk_1")
        #expect(throws: OptionsError.self) { try LaneConfiguration.parse(arguments: [], environment: [:]) }
    }
}
