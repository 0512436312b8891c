import GatewayCommandLine
import GatewayCore
import GatewayPostgres
import GatewayRepositories

/// `gatewayctl accounts create`: inserts an account straight into PostgreSQL (production
/// bootstrap, before any secret key exists) and prints its secret key once. It uses the
/// store's `Accounts.create`, the same code as the gateway, so the key is stored exactly
/// as the gateway checks it (only its SHA-256).
enum AccountCreation {
    static func run(databaseURL: String, name: String, output: CtlOutput) async -> ExitCode {
        guard let (client, shown) = CtlDatabase.client(databaseURL) else { return .usage }
        defer { Task { await client.shutdown() } }
        let id: String
        let secret: String
        do {
            (id, secret) = try await Accounts.create(name: name, client: client)
        } catch {
            return CtlDatabase.failed(error, doing: "create the account", table: "accounts table", in: shown)
        }
        output.show(
            text: "account:    \(id)\nsecret key: \(secret)\n(the secret key is shown once; only its hash is stored)",
            json: .object(["account_id": .string(id), "name": .string(name), "secret_key": .string(secret)])
        )
        return .ok
    }
}
