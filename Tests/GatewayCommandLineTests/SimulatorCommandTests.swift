import GatewayCommandLine
import GatewayCore
import GatewayWire
import Testing

@Suite("reader-sim: stdin commands, options, output lines")
struct SimulatorCommandTests {
    @Test("every stdin command parses", arguments: [
        ("silent SIM-0001", SimulatorCommand.silent(target: "SIM-0001")),
        ("wake SIM-0001", .wake(target: "SIM-0001")),
        ("drop SIM-0001", .drop(target: "SIM-0001", duration: .seconds(1))),
        ("drop all 250ms", .drop(target: "all", duration: .milliseconds(250))),
        ("offline SIM-0002", .offline(target: "SIM-0002")),
        ("online SIM-0002", .online(target: "SIM-0002")),
        ("reboot SIM-0001", .reboot(target: "SIM-0001")),
        ("slow SIM-0001 1.5s", .slow(target: "SIM-0001", delay: .milliseconds(1_500))),
        ("slow SIM-0001 0", .slow(target: "SIM-0001", delay: .zero)),
        ("ip SIM-0001 10.1.2.3", .changeIP(target: "SIM-0001", address: "10.1.2.3")),
        ("present SIM-0001 Visa 4242", .present(target: "SIM-0001", brand: "visa", last4: "4242")),
        ("decline *", .decline(target: "*", code: "generic_decline", at: .collect)),
        ("decline SIM-0001 insufficient_funds", .decline(target: "SIM-0001", code: "insufficient_funds", at: .collect)),
        ("decline SIM-0001 expired_card collect", .decline(target: "SIM-0001", code: "expired_card", at: .collect)),
        ("decline SIM-0001 do_not_honor confirm", .decline(target: "SIM-0001", code: "do_not_honor", at: .confirm)),
        ("decline SIM-0001 Confirm", .decline(target: "SIM-0001", code: "generic_decline", at: .confirm)),
        ("status", .status(target: "all")),
        ("quit", .quit),
    ])
    func parses(line: String, expected: SimulatorCommand) throws {
        #expect(try SimulatorCommand.parse(line) == expected)
    }

    @Test("blank lines and comments are skipped; `*` means every reader")
    func skipsAndTargets() throws {
        #expect(try SimulatorCommand.parse("   ") == nil)
        #expect(try SimulatorCommand.parse("# a comment") == nil)
        let command = try #require(try SimulatorCommand.parse("silent *"))
        #expect(command.applies(to: "A"))
        #expect(command.applies(to: "B"))
        #expect(try SimulatorCommand.parse("silent A")?.applies(to: "B") == false)
    }

    @Test("malformed commands say what was expected", arguments: [
        "dance SIM-0001", "silent", "present SIM-0001 visa 42", "present SIM-0001 visa abcd", "slow SIM-0001", "slow SIM-0001 fast", "ip SIM-0001",
        "decline", "decline SIM-0001 Insufficient-Funds", "decline SIM-0001 _x", "decline SIM-0001 generic_decline extra",
        "decline SIM-0001 generic_decline extra confirm",
    ])
    func rejects(line: String) {
        #expect(throws: SimulatorCommand.ParseError.self) { try SimulatorCommand.parse(line) }
    }

    @Test("options: serials, counts, device type, durations, mutual TLS")
    func options() throws {
        let defaults = try SimulatorConfiguration.parse(arguments: [], environment: [:])
        #expect(defaults.serials == ["SIM-0001"])
        #expect(defaults.gateway == GatewayAddress(host: "127.0.0.1", port: 7443))
        #expect(defaults.deviceType == .simulatedWiseposE)
        #expect(!defaults.usesMutualTLS)

        let counted = try SimulatorConfiguration.parse(arguments: ["--count", "3", "--serial-prefix", "WPE-"], environment: [:])
        #expect(counted.serials == ["WPE-0001", "WPE-0002", "WPE-0003"])
        let named = try SimulatorConfiguration.parse(arguments: ["--serial", "A, B,C"], environment: [:])
        #expect(named.serials == ["A", "B", "C"])
        let expanded = try SimulatorConfiguration.parse(arguments: ["--serial", "LANE", "--count", "2"], environment: [:])
        #expect(expanded.serials == ["LANE-1", "LANE-2"])

        let tuned = try SimulatorConfiguration.parse(arguments: [
            "--gateway", "[::1]:9443", "--device-type", "stripe_s700", "--heartbeat-interval", "250ms", "--collect-duration", "2s",
            "--ca", "ca.pem", "--reader-ca-key", "ca-key.pem", "--ip-address", "192.168.1.254",
        ], environment: ["READER_SIM_CONFIRM_DURATION": "0"])
        #expect(tuned.gateway == GatewayAddress(host: "::1", port: 9443))
        #expect(tuned.deviceType == .stripeS700)
        #expect(tuned.heartbeatInterval == .milliseconds(250))
        #expect(tuned.collectDuration == .seconds(2))
        #expect(!tuned.cardOnCommand, "a card is read by itself unless --card manual")
        #expect(tuned.confirmDuration == .zero)
        #expect(tuned.usesMutualTLS)
        #expect(tuned.readerCACertificatePath == "ca.pem")
        #expect(tuned.ipAddress(forReaderAt: 0) == "192.168.1.254")
        #expect(tuned.ipAddress(forReaderAt: 3) == "192.168.2.1")

        #expect(try SimulatorConfiguration.parse(arguments: ["--card", "manual"], environment: [:]).cardOnCommand)
        #expect(try SimulatorConfiguration.parse(arguments: [], environment: ["READER_SIM_CARD": "Manual"]).cardOnCommand)
        #expect(throws: OptionsError.self) { try SimulatorConfiguration.parse(arguments: ["--card", "tap"], environment: [:]) }

        let development = try SimulatorConfiguration.parse(arguments: ["--mtls", "--ca", "data/tls/ca.pem"], environment: [:])
        #expect(development.readerCAKeyPath == "data/tls/ca-key.pem")
        #expect(development.readerCACertificatePath == "data/tls/ca.pem")
        #expect(throws: OptionsError.self) { try SimulatorConfiguration.parse(arguments: ["--mtls"], environment: [:]) }
    }

    @Test("bad options are usage errors", arguments: [
        ["--count", "0"], ["--gateway", "nope:port"], ["--device-type", "toaster"], ["--heartbeat-interval", "soon"],
        ["--serial", "A,A"], ["--reader-ca-key", "k.pem"], ["--bogus"],
    ])
    func badOptions(arguments: [String]) {
        #expect(throws: OptionsError.self) { try SimulatorConfiguration.parse(arguments: arguments, environment: [:]) }
    }

    @Test("output lines print key=value, quote what needs it, and parse back")
    func outputLines() throws {
        let line = OutputLine("registered", ["serial": "SIM-0001", "reader_id": "tmr_1", "label": "Lane 1 \"front\"", "empty": ""])
        #expect(line.description == #"registered serial=SIM-0001 reader_id=tmr_1 label="Lane 1 \"front\"" empty="""#)
        let parsed = try #require(OutputLine.parse(line.description))
        #expect(parsed.event == "registered")
        #expect(parsed["label"] == "Lane 1 \"front\"")
        #expect(parsed["empty"] == "")
        #expect(parsed["serial"] == "SIM-0001")
        #expect(OutputLine.parse("registration_code serial=S code=K7QD-3MXA")?["code"] == "K7QD-3MXA")
    }

    @Test("gateway addresses", arguments: [
        ("127.0.0.1:7443", GatewayAddress(host: "127.0.0.1", port: 7443)),
        ("localhost", GatewayAddress(host: "localhost", port: 7443)),
        ("[::1]:1234", GatewayAddress(host: "::1", port: 1234)),
        ("::1", GatewayAddress(host: "::1", port: 7443)),
    ])
    func addresses(text: String, expected: GatewayAddress) {
        #expect(GatewayAddress(parsing: text) == expected)
    }
}
