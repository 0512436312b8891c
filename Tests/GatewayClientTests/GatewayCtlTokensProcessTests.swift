import Foundation
import GatewayClient
import GatewayTestSupport
import Testing

/// `gatewayctl tokens create` as a backend script runs it, against a `reader-gateway`
/// process: the token alone by default (as `locations create` prints the id alone), the
/// table with `--table`, one JSON document with `--json`; the token printed opens a session.
@Suite("gatewayctl tokens create")
struct GatewayCtlTokensProcessTests {
    @Test func printsTheTokenAloneAndItOpensASession() async throws {
        let gateway = try await WalkthroughGateway.start()
        do {
            func ctl(_ arguments: [String]) async throws -> (status: Int32?, output: [String], error: String) {
                let process = try await ChildProcess.start("gatewayctl", arguments, environment: gateway.environment)
                let status = await process.waitForExit()
                return (status, process.output, process.standardError)
            }
            let location = try #require(try await ctl(["locations", "create", "Front"]).output.first)

            let alone = try await ctl(["tokens", "create", "--location", location, "--ttl", "10m"])
            #expect(alone.status == 0, "\(alone.error)")
            #expect(alone.output.count == 1, "one line, the token: \(alone.output)")
            let token = try #require(alone.output.first)
            #expect(token.hasPrefix("pst_") && !token.contains(" "), "\(token)")

            let table = try await ctl(["tokens", "create", "--location", location, "--table"])
            #expect(table.status == 0, "\(table.error)")
            #expect(table.output.count == 2 && table.output[0].hasPrefix("TOKEN") && table.output[1].hasPrefix("pst_"), "\(table.output)")
            #expect(table.output.last?.contains(location) == true, "\(table.output)")

            let json = try await ctl(["--json", "tokens", "create", "--location", location])
            #expect(json.status == 0, "\(json.error)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.joined().utf8)) as? [String: Any])
            #expect((document["secret"] as? String)?.hasPrefix("pst_") == true && document["location_id"] as? String == location, "\(document)")

            // The line printed is the token itself: it opens a point-of-sale session.
            let port = try #require(gateway.address.split(separator: ":").last.flatMap { Int($0) })
            let connection = GatewayConnection(ClientChannelConfiguration(host: "127.0.0.1", port: port, trustedCAPath: gateway.ca))
            defer { connection.close() }
            let terminal = TerminalClient(connection: connection)
            let session = try await terminal.openSession(connectionToken: token, posDeviceID: "pos-1", laneLabel: "Lane 1")
            #expect(!session.sessionID.isEmpty)
            try await terminal.closeSession()
        } catch {
            gateway.discard()
            throw error
        }
        _ = await gateway.stop()
    }
}
