import Foundation
import Glibc

/// Resolves host names to socket addresses with `getaddrinfo`, on a thread of its own.
///
/// `getaddrinfo` blocks (for as long as the resolver takes, seconds when a DNS server is slow):
/// called on an event loop it would stall every connection of the loop, and on Swift's
/// cooperative pool (one thread per core) every task of the process. Each lookup runs on a
/// short-lived thread instead; the caller awaits it.
public enum HostResolver {
    /// The addresses of `host` (a name or a numeric address) for TCP `port`, in the order the
    /// resolver answered them, or a ``TransportError`` (`connectFailed`) naming the failure.
    public static func resolve(_ host: String, port: Int) async throws -> [SocketAddress] {
        if let numeric = try? SocketAddress(host: host, port: port), host != "localhost" { return [numeric] }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[SocketAddress], any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try lookUp(host, port: port) })
            }
            thread.name = "resolve-host"
            thread.start()
        }
    }

    private static func lookUp(_ host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw TransportError(.connectFailed, "could not resolve \(host): \(reason)")
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let raw = current.pointee.ai_addr, current.pointee.ai_family == AF_INET || current.pointee.ai_family == AF_INET6 {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { destination in
                    destination.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: Int(current.pointee.ai_addrlen)))
                }
                addresses.append(SocketAddress(storage: storage))
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw TransportError(.connectFailed, "could not resolve \(host): no IPv4 or IPv6 address") }
        return addresses
    }
}
