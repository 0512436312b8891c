import Foundation
import GatewayTestKit
import Synchronization

/// A TCP pass-through in front of the gateway that a test can cut, as a phone's network
/// drops: ``cut()`` shuts every connection through it at once (both sides see the end of
/// the stream, the TLS inside ends without a close alert), and new connections are carried
/// as before. TLS ends at the gateway; the proxy only copies bytes, on threads of its own.
final class CuttableProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let upstream: Mutex<Int>
    /// The sockets of the live connections (both sides).
    private let live = Mutex<Set<Int32>>([])
    private let cuts = Atomic<Int>(0)

    init(upstreamPort: Int) throws {
        upstream = Mutex(upstreamPort)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProxyError("socket: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw ProxyError("bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "test-proxy-accept"
        thread.start()
    }

    /// How many times ``cut()`` ended at least one connection.
    var cutCount: Int { cuts.load(ordering: .relaxed) }

    /// How many connections are carried now.
    var connectionCount: Int { live.withLock { $0.count / 2 } }

    /// New connections go to `port` from now on (another replica); the live ones stay.
    func redirect(to port: Int) {
        upstream.withLock { $0 = port }
    }

    /// Ends every connection through the proxy now.
    func cut() {
        let sockets = live.withLock { live -> Set<Int32> in
            defer { live.removeAll() }
            return live
        }
        if !sockets.isEmpty { cuts.add(1, ordering: .relaxed) }
        for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Stops accepting and ends every connection.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        cut()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: self.upstream.withLock { $0 })
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard upstream >= 0, connected == 0 else {
                close(client)
                if upstream >= 0 { close(upstream) }
                continue
            }
            live.withLock { $0.formUnion([client, upstream]) }
            // Each direction on its own thread; the second to finish closes both sockets.
            let pair = Pair()
            for (from, to) in [(client, upstream), (upstream, client)] {
                let thread = Thread { [self] in
                    copy(from: from, to: to)
                    shutdown(to, Int32(SHUT_WR))
                    if pair.finished.add(1, ordering: .acquiringAndReleasing).newValue == 2 {
                        live.withLock { $0.subtract([client, upstream]) }
                        close(client)
                        close(upstream)
                    }
                }
                thread.name = "test-proxy-copy"
                thread.start()
            }
        }
    }

    private func copy(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            var sent = 0
            while sent < count {
                // MSG_NOSIGNAL: a peer that is gone is an error here, not a SIGPIPE.
                let written = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                sent += written
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// The two directions of one connection: the second to finish closes it.
    private final class Pair: Sendable {
        let finished = Atomic<Int>(0)
    }

    struct ProxyError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
