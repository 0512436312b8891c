import Foundation

/// The keys that encrypt TLS session tickets, shared by every replica so that a reader resumes
/// its session on whichever replica it re-attaches to.
///
/// A key is 80 random bytes: a 16-byte name (sent in each ticket, so the server finds its key),
/// a 32-byte AES-256 key and a 32-byte HMAC-SHA256 key, the layout nginx's
/// `ssl_session_ticket_key` files use (`openssl rand 80 > ticket.key`). The first key encrypts
/// new tickets; the others only decrypt, so a rotation gives each replica the new key first and
/// the previous one second: tickets issued under the previous key still resume, and are renewed
/// under the new one.
public struct TLSTicketKeys: Sendable, Hashable {
    /// Bytes of one key.
    public static let keyLength = 80
    /// Keys a server holds at most (the current one and up to three earlier ones).
    public static let maxKeys = 4

    /// The keys, the encrypting one first; each ``keyLength`` bytes.
    public let keys: [[UInt8]]

    /// Throws a ``TransportError`` unless there are 1 to ``maxKeys`` keys of ``keyLength`` bytes with distinct names.
    public init(keys: [[UInt8]]) throws {
        guard (1...Self.maxKeys).contains(keys.count) else {
            throw TransportError(.configuration, "\(keys.count) session ticket keys given; give 1 to \(Self.maxKeys) (the current key first)")
        }
        for key in keys where key.count != Self.keyLength {
            throw TransportError(.configuration, "a session ticket key has \(key.count) bytes, not \(Self.keyLength); make one with `openssl rand 80 > ticket.key`")
        }
        guard Set(keys.map { $0.prefix(16) }).count == keys.count else {
            throw TransportError(.configuration, "two session ticket keys have the same name (first 16 bytes); each key must be made separately")
        }
        self.keys = keys
    }

    /// Reads one key per file, the encrypting key's file first. A file holds the 80 bytes
    /// themselves, or their base64 text (as a secret manager may hand it over).
    public static func load(paths: [String]) throws -> TLSTicketKeys {
        try TLSTicketKeys(keys: paths.map(readKey))
    }

    private static func readKey(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TransportError(.configuration, "the session ticket key file \(path) does not exist or is not readable by this process; check the path and its permissions")
        }
        if data.count == keyLength { return Array(data) }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if let decoded = Data(base64Encoded: text), decoded.count == keyLength { return Array(decoded) }
        throw TransportError(
            .configuration,
            "the session ticket key file \(path) holds \(data.count) bytes: neither \(keyLength) bytes nor their base64; make one with `openssl rand 80 > ticket.key`"
        )
    }
}
