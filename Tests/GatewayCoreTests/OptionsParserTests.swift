import GatewayCore
import Testing

@Suite struct OptionsParserTests {
    let parser = OptionsParser(
        program: "prog",
        summary: "test",
        environmentPrefix: "PROG",
        options: [
            .value("database-url", "URL", default: nil, help: "Where the store is."),
            .value("port", "PORT", default: "4443", help: "TLS port."),
            .value("idle-timeout", "DURATION", default: "30s", help: "Idle timeout."),
            .flag("verbose", help: "More output."),
        ]
    )

    @Test func flagsWinOverEnvironmentWhichWinsOverDefaults() throws {
        let fromDefault = try parser.parse(arguments: [], environment: [:])
        #expect(fromDefault.string("port") == "4443")
        #expect(fromDefault.source("port") == .default)

        let fromEnvironment = try parser.parse(arguments: [], environment: ["PROG_PORT": "5000"])
        #expect(fromEnvironment.string("port") == "5000")
        #expect(fromEnvironment.source("port") == .environment)

        let fromFlag = try parser.parse(arguments: ["--port=6000"], environment: ["PROG_PORT": "5000"])
        #expect(try fromFlag.int("port") == 6000)
        #expect(fromFlag.source("port") == .flag)

        let separate = try parser.parse(arguments: ["--port", "7000", "--verbose"], environment: [:])
        #expect(try separate.int("port") == 7000)
        #expect(try separate.flag("verbose"))
    }

    @Test func unknownMissingAndMalformedOptionsAreOneLineErrors() throws {
        #expect(throws: OptionsError("prog: unknown option --nope (see prog --help)")) {
            try parser.parse(arguments: ["--nope"], environment: [:])
        }
        #expect(throws: OptionsError("prog: --port needs a value: --port PORT")) {
            try parser.parse(arguments: ["--port"], environment: [:])
        }
        let parsed = try parser.parse(arguments: ["--port", "eighty", "--idle-timeout", "soon"], environment: [:])
        #expect(throws: OptionsError.self) { try parsed.int("port", in: 1...65535) }
        #expect(throws: OptionsError.self) { try parsed.duration("idle-timeout") }
        #expect(throws: OptionsError.self) { try parser.parse(arguments: ["--verbose=maybe"], environment: [:]) }
        #expect(throws: OptionsError.self) { try parser.parse(arguments: ["-x"], environment: [:]) }
    }

    @Test func durationsAcceptUnits() throws {
        let parsed = try parser.parse(arguments: ["--idle-timeout", "250ms"], environment: [:])
        #expect(try parsed.duration("idle-timeout") == .milliseconds(250))
        let minutes = try parser.parse(arguments: ["--idle-timeout=2m"], environment: [:])
        #expect(try minutes.duration("idle-timeout") == .seconds(120))
    }

    @Test func aDurationThatMayBeOff() throws {
        let off = try parser.parse(arguments: ["--idle-timeout", "OFF"], environment: [:])
        #expect(try off.durationOrOff("idle-timeout") == .some(nil))
        let set = try parser.parse(arguments: ["--idle-timeout=20ms"], environment: [:])
        #expect(try set.durationOrOff("idle-timeout") == .some(.milliseconds(20)))
        #expect(try set.durationOrOff("database-url") == nil)
        let malformed = try parser.parse(arguments: ["--idle-timeout=never"], environment: [:])
        #expect(throws: OptionsError.self) { try malformed.durationOrOff("idle-timeout") }
    }

    @Test func helpListsEveryOptionWithItsEnvironmentVariableAndDefault() {
        let help = parser.helpText()
        #expect(help.contains("--database-url URL"))
        #expect(help.contains("env PROG_DATABASE_URL"))
        #expect(help.contains("env PROG_IDLE_TIMEOUT; default: 30s"))
        #expect(help.contains("--help"))
    }
}
