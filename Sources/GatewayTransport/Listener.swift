import CGatewayLinux
import CGatewayOpenSSL
import GatewayCore
import Glibc

/// One listening socket registered (level-triggered) with one loop; accepts for a ``TLSServer``.
///
/// It accepts eagerly, up to the server's connection cap, and keeps this loop's share of the
/// handshake caps with a ``ConnectionAdmission``: a connection over a cap closes the oldest
/// handshake that has not sent its ClientHello, never the newcomer (see the module's README).
///
/// `@unchecked Sendable`: `fd` is immutable; `registered`, `paused`, `closed`, `admission` and
/// `inHandshake` are touched only on `loop`'s thread (the ...FromAnyThread methods hop there,
/// and connections in handshake never leave the loop). It holds its server strongly;
/// ``TLSServer/shutdown(gracePeriod:)`` closes it and the loop lets go of it.
final class Listener: @unchecked Sendable {
    let fd: Int32
    let loop: EventLoop
    let server: TLSServer
    private var registered = false
    private var paused = false
    private var closed = false
    private var admission: ConnectionAdmission<UInt64, SourceAddress>
    /// The connections `admission` tracks, by their admission id.
    private var inHandshake: [UInt64: TLSConnection] = [:]
    private var nextAdmissionID: UInt64 = 0

    /// `share`: how many listeners (one per loop) split the server's handshake caps.
    init(fd: Int32, loop: EventLoop, server: TLSServer, share: Int) {
        self.fd = fd
        self.loop = loop
        self.server = server
        let limits = server.configuration.limits
        let parts = max(1, share)
        admission = ConnectionAdmission(
            maxInFlight: max(1, (limits.maxHandshaking + parts - 1) / parts),
            maxPerSource: max(1, (limits.maxHandshakingPerSource + parts - 1) / parts)
        )
    }

    func startFromAnyThread() {
        loop.execute { [self] in
            guard !closed else { return }
            registered = loop.register(fd: fd, events: RG_EPOLLIN, self) != nil
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
            open(client, peer: SocketAddress(storage: address))
        }
    }

    /// Starts the handshake of an accepted socket; the OpenSSL connection is created once its
    /// first record has arrived (`TLSConnection+Hello.swift`).
    private func open(_ client: Int32, peer: SocketAddress) {
        server.counters.connections.add(1, ordering: .relaxed)
        server.counters.handshaking.add(1, ordering: .relaxed)
        server.counters.accepted.add(1, ordering: .relaxed)
        let connection = TLSConnection(
            fd: client, ssl: nil, helloContext: server.currentContext, isServer: true, verifyPeer: false, eventLoop: loop,
            limits: server.configuration.limits, counters: server.counters, peerAddress: peer, state: .handshaking
        )
        nextAdmissionID &+= 1
        let id = nextAdmissionID
        let evicted = admission.admit(id, from: peer.source)
        inHandshake[id] = connection
        connection.admission = HandshakeTicket(listener: self, id: id)
        for victim in evicted {
            guard let connection = inHandshake.removeValue(forKey: victim) else { continue }
            connection.admission = nil
            server.counters.evicted.add(1, ordering: .relaxed)
            // A reset, not a FIN: nothing is owed to a peer that never sent a ClientHello, and
            // no TIME_WAIT is left behind per evicted socket.
            _ = rg_set_linger_zero(connection.fd)
            connection.finish(.handshakeEvicted)
        }
        let handler = server.factory(connection)
        if !connection.start(handler: handler) {
            connection.finish(.ioError(TransportError(.socket, "could not register the connection with epoll", cause: OpenSSLErrors.errnoText(rg_errno()))))
        }
    }

    /// A connection's first record arrived and OpenSSL answered it. Loop thread only.
    func helloArrived(_ id: UInt64) {
        admission.helloAnswered(id)
    }

    /// A connection left its handshake (done, failed, timed out or closed). Loop thread only.
    func handshakeLeft(_ id: UInt64) {
        admission.finished(id)
        inHandshake[id] = nil
    }

    /// Stops reading the listening socket for a moment (no descriptors left).
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
