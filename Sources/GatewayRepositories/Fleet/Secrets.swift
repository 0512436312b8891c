import GatewayPostgres

/// Random identifiers and secrets.
///
/// Ids and secrets are a prefix and base-62 characters from the system's
/// secure generator (getrandom on Linux). Secrets are stored only as SHA-256
/// hashes, computed by PostgreSQL (`sha256(convert_to($1, 'UTF8'))`).
public enum Secrets {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// `prefix` followed by `count` random base-62 characters.
    public static func make(_ prefix: String, count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            bytes.append(alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))])
        }
        return prefix + String(decoding: bytes, as: UTF8.self)
    }

    public static func readerID() -> String { make("tmr_", count: 14) }
    public static func locationID() -> String { make("tml_", count: 14) }
    public static func sessionID() -> String { make("sess_", count: 16) }
    public static func accountID() -> String { make("acct_", count: 16) }
    public static func apiKeyID() -> String { make("key_", count: 16) }
    /// 43 characters of base 62 carry 256 bits.
    public static func secretKey() -> String { make("sk_", count: 43) }
    public static func connectionToken() -> String { make("pst_", count: 43) }
    public static func sessionToken() -> String { make("st_", count: 43) }
    public static func readerCredential() -> String { make("rcr_", count: 43) }
    public static func webhookEndpointID() -> String { make("we_", count: 24) }
    /// A webhook endpoint's signing secret: kept as written (the gateway signs with it), shown once.
    public static func webhookSecret() -> String { make("whsec_", count: 43) }

    /// The SQL expression hashing text parameter `$n`.
    public static func hashSQL(_ parameter: Int) -> String { "sha256(convert_to($\(parameter)::text, 'UTF8'))" }
}

/// Accounts (tenants): shared by the gateway's first-run development account and
/// `gatewayctl accounts create`, so both store keys the way the gateway checks them.
public enum Accounts {
    /// Creates an account and returns its id and secret key. The key is returned
    /// once and only its SHA-256 is stored, in `accounts`, as every release does (so this
    /// works on a schema a 0.1.0 binary left); the first call with it adopts it as the
    /// account's account key in `api_keys`, with every permission (``ApiKeyStore``).
    public static func create(name: String, client: PostgresClient) async throws(StoreError) -> (id: String, secretKey: String) {
        let id = Secrets.accountID()
        let secret = Secrets.secretKey()
        try await client.execute(
            "INSERT INTO accounts (id, name, secret_key_sha256) VALUES ($1, $2, \(Secrets.hashSQL(3)))",
            [PostgresValue(id), PostgresValue(name), PostgresValue(secret)]
        )
        return (id, secret)
    }
}
