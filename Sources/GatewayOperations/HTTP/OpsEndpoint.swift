#if canImport(Glibc)
import Glibc
#endif
import CGatewayLinux
import GatewayCore
import GatewayEventLoop

/// The ops endpoint on its event loop: the listening socket and the open connections, each
/// registered with the loop, and one timer per connection for the deadline of its phase.
///
/// `@unchecked Sendable`: created by ``OpsServer/start()``, then touched only on ``loop``'s
/// thread (``start()``, the readiness handlers, the timers, ``closeAll()`` are all run there).
final class OpsEndpoint: @unchecked Sendable {
    let loop: EventLoop
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
    private var closed = false
    /// Connections closed to make room for newer ones since start.
    private(set) var evicted = 0

    init(listener: Int32, loop: EventLoop, configuration: OpsServerConfiguration, router: OpsRouter, logger: Logger) {
        self.loop = loop
        self.listenFD = listener
        self.configuration = configuration
        self.parser = OpsHTTPRequestParser(maxHeadBytes: configuration.maxHeadBytes)
        self.router = router
        self.logger = logger
        self.admission = ConnectionAdmission(
            maxInFlight: max(1, configuration.maxConnections), maxPerSource: max(1, configuration.maxConnectionsPerSource)
        )
    }

    /// Starts accepting. Loop thread only.
    func start() throws(OpsServerError) {
        guard loop.register(fd: listenFD, events: RG_EPOLLIN, OpsSocketWatch(self, fd: listenFD)) != nil else {
            throw OpsServerError(.socketFailed, "cannot watch the listening socket with epoll", systemError: errno)
        }
    }

    /// Closes the listener and every connection. Loop thread only; idempotent.
    func closeAll() {
        guard !closed else { return }
        closed = true
        for fd in Array(connections.keys) { finish(fd) }
        loop.deregister(fd: listenFD)
        close(listenFD)
    }

    /// Readiness of `fd` (the listener or a connection).
    fileprivate func handle(fd: Int32, events: UInt32) {
        if fd == listenFD {
            acceptAll()
        } else {
            service(fd: fd, events: events)
        }
    }

    private func acceptAll() {
        while !closed {
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
            guard loop.register(fd: fd, events: RG_EPOLLIN | RG_EPOLLRDHUP, OpsSocketWatch(self, fd: fd)) != nil else {
                logger.warning("ops endpoint cannot watch a new connection; closed it", ["errno": errno])
                admission.finished(nextID)
                close(fd)
                continue
            }
            descriptors[nextID] = fd
            var connection = OpsConnection(fd: fd, id: nextID, deadline: .now + configuration.requestDeadline)
            armDeadline(&connection)
            connections[fd] = connection
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
        let chunk = loop.readBuffer
        while true {
            let count = read(connection.fd, chunk.baseAddress, chunk.count)
            if count > 0 {
                // Keep at most one byte past the cap: enough for the parser to refuse.
                if keep, connection.inbound.count <= configuration.maxHeadBytes {
                    connection.inbound.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
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
                loop.modify(fd: connection.fd, events: RG_EPOLLOUT)
                connections[connection.fd] = connection
                return
            }
            return finish(connection.fd)
        }
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.phase = .lingering
        connection.deadline = .now + configuration.lingerDuration
        armDeadline(&connection)
        loop.modify(fd: connection.fd, events: RG_EPOLLIN | RG_EPOLLRDHUP)
        connections[connection.fd] = connection
    }

    /// Arms the loop timer for the connection's current deadline (replacing the previous one).
    private func armDeadline(_ connection: inout OpsConnection) {
        connection.deadlineTimer?.cancel()
        let fd = connection.fd
        let id = connection.id
        connection.deadlineTimer = loop.schedule(after: ContinuousClock.now.duration(to: connection.deadline)) { [self] in
            deadlineReached(fd: fd, id: id)
        }
    }

    /// A connection's deadline came: a client still sending its request gets 408 first.
    ///
    /// Its request may already be in the socket, its readiness not yet handled: a loop busy
    /// with a flood runs its timers after each batch of events, and the probe's event can wait
    /// for a later batch. What arrived is read first, and a complete request is answered: the
    /// 408 is for a client that is slow, not for a server that is.
    private func deadlineReached(fd: Int32, id: UInt64) {
        guard let before = connections[fd], before.id == id else { return }
        if case .reading = before.phase { service(fd: fd, events: 0) }
        guard let connection = connections[fd], connection.id == id else { return }
        switch connection.phase {
        case .reading:
            var late = connection
            logger.debug("ops request timed out", ["received": connection.inbound.count])
            respond(&late, with: OpsHTTPResponse.error(.requestTimeout, reason: "request not received in time").serialized())
            if case .writing = connections[fd]?.phase {
                // Could not flush a 408 at once: the client is not reading either.
                finish(fd)
            }
        case .writing, .lingering:
            finish(fd)
        }
    }

    private func finish(_ fd: Int32) {
        loop.deregister(fd: fd)
        close(fd)
        if let connection = connections.removeValue(forKey: fd) {
            connection.deadlineTimer?.cancel()
            admission.finished(connection.id)
            descriptors[connection.id] = nil
        }
    }
}

/// The loop's handler for one descriptor of the ops endpoint.
///
/// `unowned`: the endpoint outlives its registrations (``OpsEndpoint/closeAll()`` removes them
/// all before the server lets go of the endpoint).
private final class OpsSocketWatch: EventLoopSelectable {
    unowned let endpoint: OpsEndpoint
    let fd: Int32

    init(_ endpoint: OpsEndpoint, fd: Int32) {
        self.endpoint = endpoint
        self.fd = fd
    }

    func handleEvents(_ events: UInt32) { endpoint.handle(fd: fd, events: events) }
}
