import GatewayCommandLine
import GatewayCore
import GatewayStore

/// `gatewayctl accounts create`: inserts an account straight into PostgreSQL (production
/// bootstrap, before any secret key exists) and prints its secret key once. Only the key's
/// SHA-256 is stored, as the gateway expects (`secret_key_sha256`).
enum AccountCreation {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// `prefix` and `count` random base-62 characters (43 characters carry 256 bits).
    static func random(_ prefix: String, count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<count).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] }
        return prefix + String(decoding: characters, as: UTF8.self)
    }

    static func run(databaseURL: String, name: String, output: CtlOutput) async -> ExitCode {
        let configuration = PostgresConfiguration(connectionString: databaseURL)
        let client: PostgresClient
        do {
            client = try PostgresClient(configuration: configuration, logger: Logger(component: "gatewayctl"))
        } catch {
            CtlOutput.fail("cannot use the database URL \(configuration.redactedDescription): \(error)")
            return .usage
        }
        defer { Task { await client.shutdown() } }
        let id = random("acct_", count: 16)
        let secret = random("sk_", count: 43)
        do {
            _ = try await client.execute(
                "INSERT INTO accounts (id, name, secret_key_sha256) VALUES ($1, $2, sha256(convert_to($3::text, 'UTF8')))",
                [PostgresValue(id), PostgresValue(name), PostgresValue(secret)]
            )
        } catch {
            let text = "\(error)"
            if text.contains("42P01") || text.contains("does not exist") {
                CtlOutput.fail("the database has no accounts table; start reader-gateway once with this --database-url to apply its migrations (\(error))")
                return .dataError
            }
            CtlOutput.fail("could not create the account in \(configuration.redactedDescription): \(error)")
            return .unavailable
        }
        output.show(
            text: "account:    \(id)\nsecret key: \(secret)\n(the secret key is shown once; only its hash is stored)",
            json: .object(["account_id": .string(id), "name": .string(name), "secret_key": .string(secret)])
        )
        return .ok
    }
}
