#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who a connection comes from, for per-source limits: an IPv4 address, or an IPv6 address's
/// /64 prefix (one subscriber's network holds a whole /64). IPv4-mapped IPv6 addresses count
/// as their IPv4 address. The port is not part of it.
public struct SourceAddress: Hashable, Sendable, CustomStringConvertible {
    /// IPv4: the address in the low 32 bits and `ipv4Marker` above; IPv6: the /64 prefix.
    let prefix: UInt64
    let isIPv6: Bool
    static let ipv4Marker: UInt64 = 0xffff_0000_0000

    /// The source of a socket address as `accept` returns it (any family: others share one key).
    public init(_ storage: sockaddr_storage) {
        var copy = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &copy) { raw in
                raw.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!, as: UInt32.self)
            }
            prefix = Self.ipv4Marker | UInt64(UInt32(bigEndian: address))
            isIPv6 = false
        case AF_INET6:
            let bytes = withUnsafeBytes(of: &copy) { raw in
                Array(raw[MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!..<MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)! + 16])
            }
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            if mapped {
                prefix = Self.ipv4Marker | bytes[12..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                isIPv6 = false
            } else {
                prefix = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                isIPv6 = true
            }
        default:
            prefix = 0
            isIPv6 = false
        }
    }

    /// `a.b.c.d`, or `xxxx:xxxx:xxxx:xxxx::/64`.
    public var description: String {
        if isIPv6 {
            let groups = (0..<4).map { String((prefix >> UInt64(48 - 16 * $0)) & 0xffff, radix: 16) }
            return groups.joined(separator: ":") + "::/64"
        }
        let v4 = UInt32(truncatingIfNeeded: prefix)
        return "\(v4 >> 24).\(v4 >> 16 & 0xff).\(v4 >> 8 & 0xff).\(v4 & 0xff)"
    }
}
