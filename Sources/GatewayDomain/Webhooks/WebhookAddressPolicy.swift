/// Which addresses a webhook may be delivered to (the SSRF guard).
///
/// A webhook URL is chosen by whoever holds a key with the `webhooks` write permission; without
/// this guard it could point the gateway at its own loopback services, a cloud metadata
/// endpoint (169.254.169.254) or the private network behind it. The guard is applied to the
/// address actually connected to, after name resolution, so a name that resolves (or is
/// re-pointed) to a private address is refused as well.
public enum WebhookAddressPolicy: Sendable, Hashable {
    /// Public addresses only (the default).
    case publicOnly
    /// Any address (`--webhook-allow-private-addresses`: receivers on the operator's own network).
    case allowPrivate

    /// Why `address` (4 or 16 bytes, network order) is refused, or nil when it may be used.
    public func refusal(_ address: [UInt8]) -> String? {
        guard self == .publicOnly else { return nil }
        guard let range = Self.restrictedRange(address) else { return nil }
        return "\(range) address"
    }

    /// The name of the restricted range `address` falls in, or nil for a public address.
    public static func restrictedRange(_ address: [UInt8]) -> String? {
        if address.count == 4 { return restrictedIPv4(address) }
        guard address.count == 16 else { return "malformed" }
        if address.allSatisfy({ $0 == 0 }) { return "unspecified" }
        if address[0..<15].allSatisfy({ $0 == 0 }) && address[15] == 1 { return "loopback" }
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms: judge the IPv4 address.
        if address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xff && address[11] == 0xff {
            return restrictedIPv4(Array(address[12..<16]))
        }
        if address[0..<12].allSatisfy({ $0 == 0 }) { return restrictedIPv4(Array(address[12..<16])) ?? "IPv4-compatible" }
        // NAT64 (64:ff9b::/96) carries an IPv4 address too.
        if address[0] == 0x00 && address[1] == 0x64 && address[2] == 0xff && address[3] == 0x9b && address[4..<12].allSatisfy({ $0 == 0 }) {
            return restrictedIPv4(Array(address[12..<16]))
        }
        if address[0] & 0xfe == 0xfc { return "unique-local" }              // fc00::/7
        if address[0] == 0xfe && address[1] & 0xc0 == 0x80 { return "link-local" }  // fe80::/10
        if address[0] == 0xfe && address[1] & 0xc0 == 0xc0 { return "site-local" }  // fec0::/10
        if address[0] == 0xff { return "multicast" }
        if address[0] == 0x20 && address[1] == 0x01 && address[2] == 0x0d && address[3] == 0xb8 { return "documentation" }
        return nil
    }

    static func restrictedIPv4(_ a: [UInt8]) -> String? {
        switch (a[0], a[1]) {
        case (0, _): return "unspecified"
        case (10, _): return "private"
        case (100, 64...127): return "shared (carrier-grade NAT)"
        case (127, _): return "loopback"
        case (169, 254): return "link-local"
        case (172, 16...31): return "private"
        case (192, 168): return "private"
        case (192, 0) where a[2] == 0: return "IETF protocol assignment"
        case (198, 18...19): return "benchmarking"
        case (224...239, _): return "multicast"
        case (240...255, _): return "reserved"
        default: return nil
        }
    }
}
