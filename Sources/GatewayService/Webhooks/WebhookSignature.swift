import GatewayTransport

/// The `ReaderGateway-Signature` header of a delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256
/// of "t.body" under the endpoint's secret>` (PROTOCOL.md section 23).
///
/// The key is the whole secret as shown (`whsec_...`), its UTF-8 bytes. A receiver recomputes
/// the MAC over the timestamp, a dot and the raw body it received, compares in constant time,
/// and refuses a timestamp more than ``tolerance`` old (a replayed request).
public enum WebhookSignature {
    public static let headerName = "ReaderGateway-Signature"
    /// How old a signature a receiver should still accept (the documented verifier's default).
    public static let tolerance: Duration = .seconds(300)

    /// The header's value for `body` signed at `timestamp` (unix seconds).
    public static func header(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        "t=\(timestamp),v1=\(mac(secret: secret, timestamp: timestamp, body: body))"
    }

    /// The hex MAC of `"<timestamp>.<body>"`.
    public static func mac(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body)
    }
}
