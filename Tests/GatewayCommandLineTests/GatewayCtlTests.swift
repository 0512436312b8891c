import GatewayClient
import GatewayCommandLine
import GatewayCore
import GatewayWire
import Testing

private func parse(_ arguments: [String], environment: [String: String] = ["GATEWAYCTL_SECRET_KEY": "sk_test"]) throws -> CtlInvocation {
    try #require(try CtlInvocation.parse(arguments: arguments, environment: environment))
}

@Suite("gatewayctl: command lines, exit codes, tables and JSON")
struct GatewayCtlTests {
    @Test("commands and their aliases parse")
    func commands() throws {
        #expect(try parse(["locations", "create", "Front", "Store"]).command == .createLocation(displayName: "Front Store"))
        #expect(try parse(["locations", "list"]).command == .listLocations)
        #expect(try parse(["readers", "register", "--code", "k7qd-3mxa", "--label", "Lane 1", "--location", "tml_1"]).command
            == .registerByCode(code: "K7QD-3MXA", label: "Lane 1", locationID: "tml_1"))
        #expect(try parse(["readers", "register-code", "K7QD-3MXA", "--label", "L", "--location", "tml_1"]).command
            == .registerByCode(code: "K7QD-3MXA", label: "L", locationID: "tml_1"))
        #expect(try parse(["readers", "register", "--serials", "A,B,C", "--label-prefix", "Lane", "--location", "tml_1", "--device-type", "stripe_s700"]).command
            == .registerBySerials(serials: ["A", "B", "C"], labelPrefix: "Lane", locationID: "tml_1", deviceType: .stripeS700))
        #expect(try parse(["readers", "register-serials", "A,B", "--label-prefix", "P", "--location", "tml_1"]).command
            == .registerBySerials(serials: ["A", "B"], labelPrefix: "P", locationID: "tml_1", deviceType: .unspecified))
        #expect(try parse(["readers", "list", "--status", "online"]).command == .listReaders(locationID: "", status: .online))
        #expect(try parse(["owners", "--location", "tml_9"]).command == .owners(locationID: "tml_9", ownedOnly: false))
        #expect(try parse(["ownership", "--owned-only"]).command == .owners(locationID: "", ownedOnly: true))
        #expect(try parse(["history", "tmr_1", "--limit", "5"]).command == .history(readerID: "tmr_1", limit: 5))
        #expect(try parse(["sessions"]).command == .sessions(locationID: ""))
        #expect(try parse(["release", "tmr_1", "--generation", "7"]).command == .release(readerID: "tmr_1", expectedGeneration: 7))
        #expect(try parse(["tokens", "create", "--location", "tml_1", "--ttl", "10m"]).command == .createToken(locationID: "tml_1", ttl: .seconds(600)))
        #expect(try parse(["accounts", "create", "--database-url", "postgresql://x/y"], environment: [:]).command
            == .createAccount(databaseURL: "postgresql://x/y", name: "default"))
        #expect(try parse(["nodes", "--database-url", "postgresql://x/y"], environment: [:]).command == .nodes(databaseURL: "postgresql://x/y"))
    }

    @Test("global options from flags and environment")
    func globals() throws {
        let invocation = try parse(["--json", "--gateway", "127.0.0.1:9000", "owners"], environment: [
            "READER_GATEWAY_SECRET_KEY": "sk_fallback", "GATEWAYCTL_CA": "/tmp/ca.pem",
        ])
        #expect(invocation.json)
        #expect(invocation.gateway == GatewayAddress(host: "127.0.0.1", port: 9000))
        #expect(invocation.secretKey == "sk_fallback")
        #expect(invocation.caPath == "/tmp/ca.pem")
        #expect(try parse(["--secret-key", "sk_flag", "owners"]).secretKey == "sk_flag")
        #expect(try CtlInvocation.parse(arguments: ["--help"], environment: [:]) == nil)
    }

    @Test("usage errors", arguments: [
        ["frobnicate"], [], ["readers", "register", "--location", "tml_1"], ["readers", "register", "--code", "C", "--serials", "A", "--location", "x"],
        ["readers", "register", "--code", "C"], ["history"], ["release"], ["tokens", "create", "--ttl", "never"], ["readers", "list", "--status", "sleepy"],
        ["accounts", "create"], ["locations", "create"], ["owners", "extra"], ["nodes"], ["nodes", "extra", "--database-url", "u"],
    ])
    func usageErrors(arguments: [String]) {
        #expect(throws: OptionsError.self) { try CtlInvocation.parse(arguments: arguments, environment: ["GATEWAYCTL_SECRET_KEY": "sk"]) }
    }

    @Test("a gateway command without a secret key is a usage error")
    func missingSecret() {
        #expect(throws: OptionsError.self) { try CtlInvocation.parse(arguments: ["owners"], environment: [:]) }
    }

    @Test("exit codes follow the status code", arguments: [
        (ReaderGatewayV1.ErrorReason.readerNotFound, ExitCode.dataError),
        (.registrationCodeInvalid, .dataError),
        (.secretKeyInvalid, .permission),
        (.permissionDenied, .permission),
        (.authenticationRateLimited, .permission),
        (.rateLimited, .dataError),
        (.connectionLost, .unavailable),
        (.storeUnavailable, .unavailable),
        (.internal, .software),
    ])
    func exitCodes(reason: ReaderGatewayV1.ErrorReason, expected: ExitCode) {
        #expect(ExitCode(RPCError(reason, "x")) == expected)
    }

    @Test("ownership renders as an aligned table and as JSON")
    func ownershipRendering() {
        var owned = ReaderGatewayV1.ReaderOwnership()
        owned.readerID = "tmr_1"
        owned.readerLabel = "Lane 1"
        owned.networkStatus = .online
        owned.generation = 3
        owned.inTransaction = true
        owned.sinceUnixMs = 1_700_000_000_000
        var owner = ReaderGatewayV1.ReaderOwner()
        owner.sessionID = "sess_1"
        owner.laneLabel = "Lane 2"
        owner.posDeviceID = "pos-2"
        owned.owner = owner
        var free = ReaderGatewayV1.ReaderOwnership()
        free.readerID = "tmr_22"
        free.readerLabel = "Spare"
        free.networkStatus = .offline
        let table = AdminRendering.table([owned, free]).description
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("READER  LABEL   STATUS   OWNER LANE"))
        #expect(lines[1].contains("Lane 2") && lines[1].contains("2023-11-14T22:13:20Z") && lines[1].hasSuffix("yes"))
        #expect(lines[2].contains("(none)") && lines[2].contains("offline"))
        let json = JSONValue.array([AdminRendering.json(owned), AdminRendering.json(free)]).description
        #expect(json.contains(#""lane_label": "Lane 2""#))
        #expect(json.contains(#""owner": null"#))
        #expect(json.contains(#""in_transaction": true"#))
        #expect(json.hasPrefix("[") && json.hasSuffix("]"))
    }

    @Test("locations create prints the new location's id alone; --json the whole location")
    func createdLocation() {
        var location = ReaderGatewayV1.Location()
        location.id = "tml_9xQ2"
        location.displayName = "Front Store"
        #expect(AdminRendering.created(location) == "tml_9xQ2")
        let json = AdminRendering.json(location).description
        #expect(json.contains(#""id": "tml_9xQ2""#) && json.contains(#""display_name": "Front Store""#))
    }

    @Test("JSON escapes strings and sorts keys")
    func jsonEscaping() {
        let value = JSONValue.object(["b": .string("a \"quote\"\n\u{1}"), "a": .integer(-1), "c": .array([]), "d": .bool(false)])
        #expect(value.description == "{\n  \"a\": -1,\n  \"b\": \"a \\\"quote\\\"\\n\\u0001\",\n  \"c\": [],\n  \"d\": false\n}")
    }
}
