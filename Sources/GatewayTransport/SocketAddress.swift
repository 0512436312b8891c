import CGatewayLinux
import GatewayCore
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

    /// The address alone, without the port (`127.0.0.1`, `::1`).
    public var hostText: String {
        let text = description
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") { return String(text[text.index(after: text.startIndex)..<close]) }
        return String(text[..<(text.lastIndex(of: ":") ?? text.endIndex)])
    }

    /// The address's bytes in network order: 4 for IPv4, 16 for IPv6.
    public var addressBytes: [UInt8] {
        var copy = storage
        return withUnsafeBytes(of: &copy) { raw in
            if storage.ss_family == sa_family_t(AF_INET6) {
                let offset = MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_addr)!
                return Array(raw[offset..<offset + 16])
            }
            let offset = MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_addr)!
            return Array(raw[offset..<offset + 4])
        }
    }

    /// `host:port`, or `[host]:port` for IPv6.
    public var description: String {
        var copy = storage
        var buffer = [CChar](repeating: 0, count: 80)
        guard rg_format_sockaddr(&copy, &buffer, Int32(buffer.count)) == 0 else { return "unknown" }
        return String(nulTerminated: buffer)
    }
}

extension SocketAddress {
    /// The source this address counts against for per-source limits.
    public var source: SourceAddress { SourceAddress(storage) }
}
