import CGatewayLinux
import Glibc

/// A numeric IPv4 or IPv6 socket address with a port.
///
/// Only numeric addresses (and `localhost`, read as 127.0.0.1) are accepted: the
/// transport never resolves names, so no lookup can block an event loop.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    /// Parses `host` (e.g. `127.0.0.1`, `::1`, `[::1]`, `localhost`) and `port`.
    public init(host: String, port: Int) throws {
        var storage = sockaddr_storage()
        var length = socklen_t(0)
        guard rg_make_sockaddr(host, Int32(truncatingIfNeeded: port), &storage, &length) == 0 else {
            throw TransportError(
                .configuration,
                "'\(host)' port \(port) is not a numeric IP address and port; use an address such as 127.0.0.1 or ::1"
            )
        }
        self.storage = storage
        self.length = length
    }

    /// Whether `name` is a numeric address (`127.0.0.1`, `::1`, `[::1]`) rather than a host
    /// name; "localhost" counts as a name (certificates carry it as a DNS name).
    public static func isNumeric(_ name: String) -> Bool {
        name != "localhost" && (try? SocketAddress(host: name, port: 0)) != nil
    }

    init(storage: sockaddr_storage) {
        self.storage = storage
        self.length = socklen_t(storage.ss_family == sa_family_t(AF_INET6)
            ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    }

    /// The port number.
    public var port: Int {
        var copy = storage
        return Int(rg_sockaddr_port(&copy))
    }

    /// `host:port`, or `[host]:port` for IPv6.
    public var description: String {
        var copy = storage
        var buffer = [CChar](repeating: 0, count: 80)
        guard rg_format_sockaddr(&copy, &buffer, Int32(buffer.count)) == 0 else { return "unknown" }
        return String(nulTerminated: buffer)
    }
}

/// Who a connection comes from, for per-source limits: an IPv4 address, or an IPv6 address's
/// /64 prefix (one subscriber's network holds a whole /64). IPv4-mapped IPv6 addresses count
/// as their IPv4 address. The port is not part of it.
public struct SourceAddress: Hashable, Sendable, CustomStringConvertible {
    /// IPv4: the address in the low 32 bits and `ipv4Marker` above; IPv6: the /64 prefix.
    let prefix: UInt64
    let isIPv6: Bool
    static let ipv4Marker: UInt64 = 0xffff_0000_0000

    init(_ storage: sockaddr_storage) {
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

extension SocketAddress {
    /// The source this address counts against for per-source limits.
    public var source: SourceAddress { SourceAddress(storage) }
}
