#if canImport(Glibc)
import Glibc
#endif
import CGatewayLinux
import GatewayCore

/// The ops thread's epoll loop: the listener, a wake-up eventfd and the
/// open connections.
///
/// `@unchecked Sendable`: created by ``OpsServer/start()`` and then used only
/// by the ops thread (``run()``), apart from ``wakeFD``, an immutable
/// descriptor any thread may write to through ``wake(_:)``.
final class OpsEventLoop: @unchecked Sendable {
    let wakeFD: Int32
    private let epollFD: Int32
    private let listenFD: Int32
    private let configuration: OpsServerConfiguration
    private let parser: OpsHTTPRequestParser
    private let router: OpsRouter
    private let logger: Logger
    private var connections: [Int32: OpsConnection] = [:]
    /// Which connections a newcomer may push out: those still sending their request first.
    private var admission: ConnectionAdmission<UInt64, SourceAddress>
    /// The descriptor of each admitted connection, by its id.
    private var descriptors: [UInt64: Int32] = [:]
    private var nextID: UInt64 = 0
    /// Connections closed to make room for newer ones since start.
    private(set) var evicted = 0

    private static let listenerToken = UInt64.max
    private static let wakeToken = UInt64.max - 1

    init(listener: Int32, configuration: OpsServerConfiguration, router: OpsRouter, logger: Logger) throws(OpsServerError) {
        let epollFD = rg_epoll_create()
        guard epollFD >= 0 else { throw OpsServerError(.socketFailed, "cannot create an epoll instance", systemError: errno) }
        let wakeFD = rg_eventfd(0)
        guard wakeFD >= 0 else {
            let code = errno
            close(epollFD)
            throw OpsServerError(.socketFailed, "cannot create an eventfd", systemError: code)
        }
        _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_ADD, listener, RG_EPOLLIN, Self.listenerToken)
        _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_ADD, wakeFD, RG_EPOLLIN, Self.wakeToken)
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        self.listenFD = listener
        self.configuration = configuration
        self.parser = OpsHTTPRequestParser(maxHeadBytes: configuration.maxHeadBytes)
        self.router = router
        self.logger = logger
        self.admission = ConnectionAdmission(
            maxInFlight: max(1, configuration.maxConnections), maxPerSource: max(1, configuration.maxConnectionsPerSource)
        )
    }

    /// Asks the loop on the ops thread to stop.
    static func wake(_ fd: Int32) { _ = rg_eventfd_write(fd, 1) }

    /// Serves until woken, then closes everything it owns.
    func run() {
        var events = [rg_epoll_event](repeating: rg_epoll_event(), count: 64)
        var running = true
        while running {
            let count = events.withUnsafeMutableBufferPointer {
                rg_epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeoutMilliseconds())
            }
            if count < 0 {
                if errno == EINTR { continue }
                logger.error("ops endpoint stops: epoll_wait failed", ["errno": errno])
                break
            }
            for event in events[0..<Int(count)] {
                switch event.data {
                case Self.wakeToken: running = false
                case Self.listenerToken: acceptAll()
                default: service(fd: Int32(truncatingIfNeeded: event.data), events: event.events)
                }
            }
            expire(now: .now)
        }
        for fd in connections.keys { close(fd) }
        connections.removeAll()
        close(listenFD)
        close(wakeFD)
        close(epollFD)
    }

    /// Wait no longer than the nearest deadline (and at most a second).
    private func timeoutMilliseconds() -> Int32 {
        guard let nearest = connections.values.map(\.deadline).min() else { return 1000 }
        let remaining = ContinuousClock.now.duration(to: nearest)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int32(min(1000, seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
    }

    private func acceptAll() {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { rg_accept4_nonblocking(listenFD, $0, &length) }
            }
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno != EAGAIN, errno != EWOULDBLOCK {
                    logger.warning("ops endpoint accept failed", ["errno": errno])
                }
                return
            }
            nextID &+= 1
            for victim in admission.admit(nextID, from: SourceAddress(address)) {
                guard let victimFD = descriptors[victim] else { continue }
                evicted += 1
                finish(victimFD)
            }
            descriptors[nextID] = fd
            connections[fd] = OpsConnection(fd: fd, id: nextID, deadline: .now + configuration.requestDeadline)
            _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_ADD, fd, RG_EPOLLIN | RG_EPOLLRDHUP, UInt64(fd))
        }
    }

    private func service(fd: Int32, events: UInt32) {
        guard var connection = connections[fd] else { return }
        if events & RG_EPOLLERR != 0 { return finish(fd) }
        switch connection.phase {
        case .reading:
            // Parse even when the client already half-closed after its request.
            let open = readAvailable(&connection, keep: true)
            switch parser.parse(connection.inbound) {
            case .needMoreBytes:
                if open { connections[fd] = connection } else { finish(fd) }
            case .complete(let head, _):
                let response = router.respond(to: head)
                respond(&connection, with: response.serialized(includeBody: head.method != "HEAD"))
            case .invalid(let status, let reason):
                logger.debug("ops request refused", ["status": status.code, "reason": reason])
                respond(&connection, with: OpsHTTPResponse.error(status, reason: reason).serialized())
            }
        case .writing:
            flush(&connection)
        case .lingering:
            if readAvailable(&connection, keep: false) { connections[fd] = connection } else { finish(fd) }
        }
    }

    /// Reads until the socket would block. Returns false on EOF or error.
    private func readAvailable(_ connection: inout OpsConnection, keep: Bool) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                // Keep at most one byte past the cap: enough for the parser to refuse.
                if keep, connection.inbound.count <= configuration.maxHeadBytes {
                    connection.inbound.append(contentsOf: chunk[0..<count])
                }
                continue
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK
        }
    }

    private func respond(_ connection: inout OpsConnection, with bytes: [UInt8]) {
        admission.helloAnswered(connection.id)
        connection.inbound = []
        connection.phase = .writing(outbound: bytes, written: 0)
        flush(&connection)
    }

    /// Writes what the socket takes; then waits for writability, or shuts the
    /// write side and lingers once everything is sent.
    private func flush(_ connection: inout OpsConnection) {
        guard case .writing(let outbound, var written) = connection.phase else { return }
        while written < outbound.count {
            let count = outbound.withUnsafeBytes {
                send(connection.fd, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL))
            }
            if count > 0 { written += count; continue }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                connection.phase = .writing(outbound: outbound, written: written)
                _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_MOD, connection.fd, RG_EPOLLOUT, UInt64(connection.fd))
                connections[connection.fd] = connection
                return
            }
            return finish(connection.fd)
        }
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.phase = .lingering
        connection.deadline = .now + configuration.lingerDuration
        _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_MOD, connection.fd, RG_EPOLLIN | RG_EPOLLRDHUP, UInt64(connection.fd))
        connections[connection.fd] = connection
    }

    /// Closes connections whose deadline passed: a client still sending its
    /// request gets 408 first.
    private func expire(now: ContinuousClock.Instant) {
        for (fd, connection) in connections where connection.deadline <= now {
            switch connection.phase {
            case .reading:
                var late = connection
                logger.debug("ops request timed out", ["received": connection.inbound.count])
                late.deadline = now + configuration.lingerDuration
                respond(&late, with: OpsHTTPResponse.error(.requestTimeout, reason: "request not received in time").serialized())
                if case .writing = connections[fd]?.phase {
                    // Could not flush a 408 at once: the client is not reading either.
                    finish(fd)
                }
            case .writing, .lingering:
                finish(fd)
            }
        }
    }

    private func finish(_ fd: Int32) {
        _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_DEL, fd, 0, 0)
        close(fd)
        if let connection = connections.removeValue(forKey: fd) {
            admission.finished(connection.id)
            descriptors[connection.id] = nil
        }
    }
}
