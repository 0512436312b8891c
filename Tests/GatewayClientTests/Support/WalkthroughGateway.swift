import Foundation
import GatewayTestSupport
import Testing

/// What the README's walkthroughs start from: a `reader-gateway` process on the test run's
/// PostgreSQL (instead of its embedded default), its development CA, and an account from
/// `gatewayctl accounts create`, with the environment that points `gatewayctl` at them.
struct WalkthroughGateway {
    let database: TestDatabase
    let directory: String
    let gateway: LoggedProcess
    let ca: String
    let secretKey: String
    /// `127.0.0.1:<port>`, as `--gateway` takes it.
    let address: String

    /// `GATEWAYCTL_CA`, `GATEWAYCTL_SECRET_KEY` and `GATEWAYCTL_GATEWAY` for this gateway.
    var environment: [String: String] { ["GATEWAYCTL_CA": ca, "GATEWAYCTL_SECRET_KEY": secretKey, "GATEWAYCTL_GATEWAY": address] }

    /// Starts the gateway (with `arguments` after the walkthroughs' own) and creates the account.
    static func start(_ arguments: [String] = []) async throws -> WalkthroughGateway {
        let database = try await TestPostgres.database()
        let directory = TestPostgres.makeTemporaryDirectory()
        let gateway = try await LoggedProcess.start(
            PackageExecutables.path("reader-gateway"),
            ["--data-dir", directory + "/data", "--port", "0", "--internal-port", "0"] + arguments,
            logPath: directory + "/gateway.log",
            environment: ["READER_GATEWAY_DATABASE_URL=\(database.connectionString)"]
        )
        do {
            _ = try #require(await gateway.waitForLine(containing: "msg=ready"), "gateway not ready:\n\(gateway.output)")
            let listening = try #require(await gateway.waitForLine(containing: "gateway listening"))
            let port = try #require(LoggedProcess.field("address", in: listening)?.split(separator: ":").last.flatMap { Int($0) })
            let certificatesLine = try #require(await gateway.waitForLine(containing: "development TLS certificates"))
            let ca = try #require(LoggedProcess.field("ca", in: certificatesLine))
            let accountCreation = try await ChildProcess.start("gatewayctl", ["--json", "accounts", "create", "--database-url", database.connectionString])
            #expect(await accountCreation.waitForExit(timeout: .seconds(30)) == 0, "stderr: \(accountCreation.standardError)")
            let account = try #require(try JSONSerialization.jsonObject(with: Data(accountCreation.output.joined().utf8)) as? [String: Any])
            let secretKey = try #require(account["secret_key"] as? String)
            return WalkthroughGateway(database: database, directory: directory, gateway: gateway, ca: ca, secretKey: secretKey, address: "127.0.0.1:\(port)")
        } catch {
            gateway.process.signal(SIGKILL)
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Stops the gateway as an operator would (its exit status: 0 for a clean stop) and
    /// closes the database.
    func stop() async -> Int32? {
        let status = await gateway.stop()
        await database.close()
        return status
    }

    /// Whatever is left when a test ends early: the process killed, the directory removed.
    func discard() {
        gateway.process.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
