/// Random identifiers and secrets.
///
/// Ids and secrets are a prefix and base-62 characters from the system's
/// secure generator (getrandom on Linux). Secrets are stored only as SHA-256
/// hashes, computed by PostgreSQL (`sha256(convert_to($1, 'UTF8'))`).
enum Secrets {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// `prefix` followed by `count` random base-62 characters.
    static func make(_ prefix: String, count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            bytes.append(alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))])
        }
        return prefix + String(decoding: bytes, as: UTF8.self)
    }

    static func readerID() -> String { make("tmr_", count: 14) }
    static func locationID() -> String { make("tml_", count: 14) }
    static func sessionID() -> String { make("sess_", count: 16) }
    static func accountID() -> String { make("acct_", count: 16) }
    /// 43 characters of base 62 carry 256 bits.
    static func secretKey() -> String { make("sk_", count: 43) }
    static func connectionToken() -> String { make("pst_", count: 43) }
    static func sessionToken() -> String { make("st_", count: 43) }
    static func readerCredential() -> String { make("rcr_", count: 43) }

    /// The SQL expression hashing text parameter `$n`.
    static func hashSQL(_ parameter: Int) -> String { "sha256(convert_to($\(parameter)::text, 'UTF8'))" }
}
