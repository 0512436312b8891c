import CGatewayLinux
import CGatewayOpenSSL
import Glibc

/// One listening socket registered (level-triggered) with one loop; accepts for a ``TLSServer``.
///
/// `@unchecked Sendable`: `fd` is immutable; `registered`, `paused` and `closed` are touched
/// only on `loop`'s thread (the ...FromAnyThread methods hop there). It holds its server
/// strongly; ``TLSServer/shutdown(gracePeriod:)`` closes it and the loop lets go of it.
final class Listener: @unchecked Sendable {
    let fd: Int32
    let loop: EventLoop
    let server: TLSServer
    private var registered = false
    private var paused = false
    private var closed = false

    init(fd: Int32, loop: EventLoop, server: TLSServer) {
        self.fd = fd
        self.loop = loop
        self.server = server
    }

    func startFromAnyThread() {
        loop.execute { [self] in
            guard !closed else { return }
            registered = loop.register(fd: fd, events: RG_EPOLLIN, self)
        }
    }

    func closeFromAnyThread() {
        loop.execute { [self] in
            guard !closed else { return }
            closed = true
            if registered { loop.deregister(fd: fd) }
            Glibc.close(fd)
        }
    }

    private func acceptBatch() {
        let limits = server.configuration.limits
        for _ in 0..<64 {
            if server.counters.handshaking.load(ordering: .relaxed) >= limits.maxHandshaking {
                pauseAccepting()
                return
            }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { rg_accept4_nonblocking(fd, $0, &length) }
            }
            if client < 0 {
                let error = rg_errno()
                if error == EMFILE || error == ENFILE {
                    server.logger.warning("out of file descriptors; pausing accept", ["errno": error])
                    pauseAccepting()
                }
                return
            }
            if server.counters.connections.load(ordering: .relaxed) >= limits.maxConnections {
                server.refusedConnections.add(1, ordering: .relaxed)
                _ = rg_set_linger_zero(client)
                Glibc.close(client)
                continue
            }
            _ = rg_set_nodelay(client)
            open(client, peer: SocketAddress(storage: address).description)
        }
    }

    private func open(_ client: Int32, peer: String) {
        let context = server.currentContext
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else {
            _ = OpenSSLErrors.drain()
            Glibc.close(client)
            return
        }
        SSL_set_fd(ssl, client)
        SSL_set_accept_state(ssl)
        server.counters.connections.add(1, ordering: .relaxed)
        server.counters.handshaking.add(1, ordering: .relaxed)
        let connection = TLSConnection(
            fd: client, ssl: ssl, isServer: true, verifyPeer: false, eventLoop: loop,
            limits: server.configuration.limits, counters: server.counters, peer: peer, state: .handshaking
        )
        let handler = server.factory(connection)
        if !connection.start(handler: handler) {
            connection.finish(.ioError(TransportError(.socket, "could not register the connection with epoll", cause: OpenSSLErrors.errnoText(rg_errno()))))
        }
    }

    /// Stops reading the listening socket for a moment (handshake cap or no descriptors left).
    private func pauseAccepting() {
        guard !paused, registered else { return }
        paused = true
        loop.modify(fd: fd, events: 0)
        loop.schedule(after: .milliseconds(10)) { [self] in
            guard !closed else { return }
            paused = false
            loop.modify(fd: fd, events: RG_EPOLLIN)
        }
    }
}

extension Listener: EventLoopSelectable {
    func handleEvents(_ events: UInt32) {
        guard !closed, !paused else { return }
        acceptBatch()
    }
}
