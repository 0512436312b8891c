import CGatewayLinux
import CGatewayOpenSSL
import GatewayCore
import Glibc
import Synchronization

/// Counters shared by the connections of one server, read and written from every loop.
final class ServerCounters: Sendable {
    let connections = Atomic<Int>(0)
    let handshaking = Atomic<Int>(0)
    /// Connections closed in handshake to make room for newer ones (``CloseReason/handshakeEvicted``).
    let evicted = Atomic<Int>(0)
    /// Idle connections whose buffers were released (``TLSServer/buffersReleasedCount``).
    let buffersReleased = Atomic<Int>(0)
    /// Releases refused while a buffer held data (``TLSServer/buffersReleaseDeferredCount``).
    let buffersReleaseDeferred = Atomic<Int>(0)
    /// Session tickets issued on established connections (``TLSServer/ticketsRenewedCount``).
    let ticketsRenewed = Atomic<Int>(0)
    /// Set when the last connection closes while the server shuts down (see ``TLSServer/shutdown(gracePeriod:)``).
    let drained = Mutex<Latch?>(nil)
    /// Connections accepted since start (``TLSServer/statistics``).
    let accepted = Atomic<Int>(0)
    /// Handshake outcomes and open connections by certificate (``TLSServer/statistics``).
    let handshakes = HandshakeCounters()
    /// Set by ``TLSServer/beginShutdown()``: open connections are draining.
    let shuttingDown = Atomic<Bool>(false)

    /// Counts a closed connection; the last one during a shutdown sets ``drained``.
    func connectionClosed() {
        guard connections.subtract(1, ordering: .relaxed).newValue == 0 else { return }
        drained.withLock { $0 }?.set()
    }

    /// A latch set once no connection is left (at once if none is open now).
    func latchWhenEmpty() -> Latch {
        let latch = drained.withLock { slot in
            if let latch = slot { return latch }
            let latch = Latch()
            slot = latch
            return latch
        }
        if connections.load(ordering: .relaxed) == 0 { latch.set() }
        return latch
    }
}

/// One TLS connection (server or client side) on a non-blocking socket, confined to its loop.
///
/// ## TLS on the socket: `SSL_set_fd`, not memory BIOs
/// OpenSSL reads and writes the socket itself. Memory BIOs would add two more buffers per
/// connection and a copy in each direction; with `SSL_set_fd`, and the loop freeing OpenSSL's
/// record buffers once a connection has been quiet for a moment (`TLSConnection+Buffers.swift`),
/// an idle connection holds no record buffers at all, which is what lets one process hold tens
/// of thousands of idle readers. The price — OpenSSL decides when to touch the socket — is paid by
/// classifying every `rc <= 0` with `SSL_get_error` and treating `WANT_READ` / `WANT_WRITE` as
/// "wait for the next edge" (see ``EventLoop``).
///
/// ## Threads
/// `@unchecked Sendable` so it can be captured in `eventLoop.execute { ... }`: every stored
/// property is read and written only on its loop's thread (public methods check this in
/// debug builds), except ``home``, which is behind its `Mutex`. Hop with
/// `connection.eventLoop.execute { connection.write(...) }`. A connection can move to another
/// loop (``move(to:then:)``); code that may race a move hops through its own handler's
/// mailbox instead (as the gateway's connections do), since a task queued on the old loop
/// after the move would run there.
public final class TLSConnection: @unchecked Sendable {
    /// The lifecycle of a connection.
    enum State {
        /// TCP connect in progress (client side).
        case connecting
        /// TLS handshake in progress.
        case handshaking
        /// Application bytes flow both ways.
        case active
        /// Flushing queued bytes, then close_notify, then waiting for the peer's close_notify.
        case closing
        /// The socket is closed and the handler was told.
        case closed
    }

    /// The loop that owns this connection (loop-confined; see ``eventLoop`` for other threads).
    var loop: EventLoop
    /// The TLS bookkeeping of ``loop``; set when the connection registers with it (``start(handler:)``,
    /// or its arrival after a move). Loop-confined.
    var loopState: TLSLoopState!
    /// ``loop`` for other threads: changed only by ``move(to:then:)``.
    let home: Mutex<EventLoop>
    /// The loop that owns this connection. Callable from any thread.
    public var eventLoop: EventLoop { home.withLock { $0 } }
    let fd: Int32
    /// The OpenSSL connection; freed as soon as the connection finishes (not at deinit), so a
    /// closed connection still referenced by a pending timer entry holds no TLS state.
    var sslHandle: OpaquePointer?
    /// The live OpenSSL connection (only used before ``finish(_:)``).
    var ssl: OpaquePointer { sslHandle.unsafelyUnwrapped }
    let limits: ConnectionLimits
    let isServer: Bool
    let verifyPeer: Bool
    let counters: ServerCounters?
    var handler: (any ConnectionHandler)?
    var state: State
    /// What the connection learnt in its handshake (the peer, its verified identity, ALPN,
    /// version, cipher), read from OpenSSL when asked rather than kept: a reader's link lives
    /// for days and its handler already has it from ``ConnectionHandler/connectionActive(_:info:)``.
    /// Nil before the handshake finished and once the connection is closed. Loop thread only.
    public var info: ConnectionInfo? {
        guard sslHandle != nil, state == .active || state == .closing else { return nil }
        return makeInfo()
    }
    /// The peer as the caller named it (client side), or nil with ``peerAddress`` set (server side).
    private let peerName: String?
    /// The peer's address as accepted (server side): formatted only when a message or
    /// ``ConnectionInfo`` needs it, so a flood's sockets cost no string each.
    private let peerAddress: SocketAddress?
    /// `host:port` of the peer.
    var peerDescription: String { peerName ?? peerAddress?.description ?? "unknown" }

    // Write side.
    var pending: [UInt8] = []
    var pendingStart = 0
    var isWritableFlag = true
    var readPaused = false
    /// SSL_read returned WANT_WRITE: the next writable edge must resume reading.
    var readWantsWrite = false
    var closeAfterFlush = false
    var closeNotifySent = false
    var pendingCloseReason: CloseReason = .closedLocally
    /// Why the handshake failed, when it does (counted by ``finish(_:)``); set where it fails.
    var handshakeFailure: TLSHandshakeFailure = .internal
    /// Counted in ``HandshakeCounters/openWithCertificate`` until it closes.
    var countedWithCertificate = false
    /// Client side: where the sessions the server issues are kept (OpenSSL's new-session
    /// callback finds it through the `SSL`'s ex-data, so it lives as long as the connection).
    var sessionCache: TLSSessionCache?
    /// Server side: when (``EventLoop/now``) the link is due a new session ticket, half a
    /// ticket lifetime after its last one; `UInt64.max` if it never renews (a lane, a client
    /// connection, TLS 1.2, tickets off). See `TLSConnection+TicketRenewal.swift`.
    var ticketRenewalDue: UInt64 = .max

    /// Set by the socket BIO's read watch (`rg_SSL_watch_reads`): whether OpenSSL's last
    /// read(2) left the socket empty. Allocated here so its address outlives the BIO, which
    /// `SSL_free` frees before `deinit` deallocates this.
    let lastReadDrained: UnsafeMutablePointer<Int32>
    /// Whether the read watch is installed (so ``lastReadDrained`` can be trusted).
    var readsWatched = false
    /// Server side, before the first TLS record is whole in the socket: the OpenSSL connection
    /// does not exist yet (see `TLSConnection+Hello.swift`), so a silent or dribbling peer costs
    /// no TLS state and no record buffers.
    var helloContext: TLSContext?
    /// The listener's handshake admission this connection counts against while in handshake.
    var admission: HandshakeTicket?

    // Loop bookkeeping.
    var flushScheduled = false
    /// On the loop's buffer sweep (OpenSSL may hold record buffers for it).
    var buffersTracked = false
    /// Released by the sweep, and no record read or written since (``recordBuffersReleased``).
    var buffersReleased = false
    /// How long this connection must be quiet before the sweep releases its buffers.
    var bufferRelease: IdleBufferRelease
    var continueReadingScheduled = false
    var lastActivity: UInt64
    var stateDeadline: UInt64 = 0
    var armedDeadline: UInt64 = UInt64.max

    /// `ssl` is nil for a server connection still waiting for its first record; it is created
    /// from `helloContext` once that record is whole.
    init(
        fd: Int32,
        ssl: OpaquePointer?,
        helloContext: TLSContext? = nil,
        isServer: Bool,
        verifyPeer: Bool,
        eventLoop: EventLoop,
        limits: ConnectionLimits,
        counters: ServerCounters?,
        peer: String? = nil,
        peerAddress: SocketAddress? = nil,
        state: State
    ) {
        self.fd = fd
        self.sslHandle = ssl
        self.helloContext = helloContext
        self.isServer = isServer
        self.verifyPeer = verifyPeer
        self.loop = eventLoop
        self.home = Mutex(eventLoop)
        self.limits = limits
        self.counters = counters
        self.peerName = peer
        self.peerAddress = peerAddress
        self.state = state
        self.lastActivity = eventLoop.now
        bufferRelease = IdleBufferRelease(configured: limits.releaseBuffersAfter?.nanoseconds ?? .max)
        lastReadDrained = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        lastReadDrained.initialize(to: 0)
        if let ssl { readsWatched = rg_SSL_watch_reads(ssl, lastReadDrained) == 1 }
    }

    deinit {
        if let sslHandle { SSL_free(sslHandle) }
        if state != .closed { Glibc.close(fd) }
        lastReadDrained.deallocate()
    }

    /// Registers with the loop and starts the handshake clock. Loop thread only.
    func start(handler: any ConnectionHandler) -> Bool {
        self.handler = handler
        let events = RG_EPOLLIN | RG_EPOLLOUT | RG_EPOLLRDHUP | RG_EPOLLET
        loopState = TLSLoopState.of(loop)
        guard loop.register(fd: fd, events: events, self) != nil else { return false }
        setDeadline(rg_monotonic_nanoseconds() &+ limits.handshakeTimeout.nanoseconds)
        return true
    }

    /// Whether the write buffer is below its high-water mark.
    public var isWritable: Bool { isWritableFlag }

    /// Bytes queued and not yet accepted by the socket.
    public var bufferedBytes: Int { pending.count - pendingStart }

    /// The remote address, `host:port`.
    public var peer: String { peerDescription }

    // MARK: events

    func handleReadiness(_ events: UInt32) {
        if state != .closed { noteBuffersInUse() }
        switch state {
        case .connecting:
            let error = rg_socket_error(fd)
            if error != 0 {
                finish(.connectFailed(TransportError(.connectFailed, "could not connect to \(peerDescription); is the server running and listening there?", cause: OpenSSLErrors.errnoText(error))))
                return
            }
            if events & (RG_EPOLLOUT | RG_EPOLLERR | RG_EPOLLHUP) == 0 { return }
            state = .handshaking
            advanceHandshake()
        case .handshaking:
            advanceHandshake()
        case .active:
            if bufferedBytes > 0 { flush() }
            if readWantsWrite && events & RG_EPOLLOUT != 0 { readWantsWrite = false }
            // A read that leaves the socket empty may end the round, unless the peer's close
            // (or an error) came with this edge: then read on to the end of the stream.
            if state == .active { readAvailable(mayStopAtShortRead: events & (RG_EPOLLRDHUP | RG_EPOLLHUP | RG_EPOLLERR) == 0) }
        case .closing:
            if bufferedBytes > 0 { flush() }
            if state == .closing { drainWhileClosing() }
        case .closed:
            break
        }
    }

    // MARK: handshake

    func advanceHandshake() {
        if sslHandle == nil {
            guard awaitHelloRecord() else { return }
        }
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 {
            handshakeFinished()
            return
        }
        let error = SSL_get_error(ssl, rc)
        switch error {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return
        default:
            finish(.handshakeFailed(handshakeError(sslError: error)))
        }
    }

    private func handshakeError(sslError: Int32) -> TransportError {
        let queue = OpenSSLErrors.drain()
        let verify = SSL_get_verify_result(ssl)
        if verify != X509_V_OK {
            handshakeFailure = .certificate
            let reason = String(cString: X509_verify_cert_error_string(verify))
            let side = isServer ? "client" : "server"
            return TransportError(
                .certificateVerification,
                "the \(side) certificate of \(peerDescription) was rejected: \(reason) (X509 verify error \(verify)); check that it is current, issued by the trusted CA and names this host",
                cause: queue
            )
        }
        if sslError == SSL_ERROR_SYSCALL && queue == nil {
            let saved = rg_errno()
            handshakeFailure = saved == 0 || saved == ECONNRESET || saved == EPIPE ? .closed : .internal
            let detail = saved == 0 ? "the peer closed the connection during the handshake" : OpenSSLErrors.errnoText(saved)
            return TransportError(.handshakeFailed, "TLS handshake with \(peerDescription) failed: \(detail)")
        }
        handshakeFailure = sslError == SSL_ERROR_ZERO_RETURN ? .closed : .protocol
        return TransportError(
            .handshakeFailed,
            "TLS handshake with \(peerDescription) failed; the peer may not speak TLS 1.2+, share a cipher, or trust this certificate",
            cause: queue
        )
    }

    private func handshakeFinished() {
        if let counters {
            counters.handshaking.subtract(1, ordering: .relaxed)
            countHandshakeSuccess(counters.handshakes)
        }
        leaveAdmission()
        state = .active
        lastActivity = loop.now
        setDeadline(idleDeadline())
        if isServer { armTicketRenewal() }
        handler?.connectionActive(self, info: makeInfo())
        if state == .active { readAvailable() }
    }

    private func makeInfo() -> ConnectionInfo {
        var alpnPointer: UnsafePointer<UInt8>?
        var alpnLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &alpnPointer, &alpnLength)
        var alpn: String?
        if let alpnPointer, alpnLength > 0 {
            alpn = String(decoding: UnsafeBufferPointer(start: alpnPointer, count: Int(alpnLength)), as: UTF8.self)
        }
        return ConnectionInfo(
            peer: peerDescription,
            verifiedClientIdentity: isServer ? verifiedClient().identity : nil,
            alpn: alpn,
            tlsVersion: String(cString: SSL_get_version(ssl)),
            cipher: SSL_get_current_cipher(ssl).map { String(cString: SSL_CIPHER_get_name($0)) } ?? "none",
            resumed: rg_SSL_session_reused(ssl) == 1
        )
    }

    /// Whether the client presented a certificate that was verified and has not expired, and
    /// the identity it proves (its subject's serialNumber, else its commonName). A full
    /// handshake's session holds the certificate until its ticket is made; from then on, and
    /// in a resumed session, the session carries the identity and the certificate's notAfter
    /// instead (`rg_ticket_generate`: decoding a certificate from every ticket cost a third of
    /// a resumed handshake). A resumed session also carries the verdict of the handshake that
    /// made it; the ticket callback refused tickets whose certificate expired since, and this
    /// checks again.
    func verifiedClient() -> (verified: Bool, identity: String?) {
        if let certificate = SSL_get1_peer_certificate(ssl) {
            defer { X509_free(certificate) }
            guard SSL_get_verify_result(ssl) == X509_V_OK, Self.isCurrent(certificate) else { return (false, nil) }
            guard let name = X509_get_subject_name(certificate) else { return (true, nil) }
            return (true, Self.text(of: NID_serialNumber, in: name) ?? Self.text(of: NID_commonName, in: name))
        }
        var buffer = [CChar](repeating: 0, count: 256)
        var notAfter: Int64 = 0
        let length = rg_SSL_ticket_identity(ssl, &buffer, Int32(buffer.count), &notAfter)
        guard length >= 0, SSL_get_verify_result(ssl) == X509_V_OK, notAfter > Int64(time(nil)) else { return (false, nil) }
        return (true, length > 0 ? String(nulTerminated: buffer) : nil)
    }

    /// Whether `certificate` has not expired yet (a resumed session's was verified when the
    /// session was made, perhaps before it expired).
    static func isCurrent(_ certificate: OpaquePointer) -> Bool {
        X509_cmp_current_time(X509_get0_notAfter(certificate)) > 0
    }

    /// Counts a server handshake that succeeded, by whether the peer presented a verified
    /// certificate, and whether it resumed a session.
    private func countHandshakeSuccess(_ handshakes: HandshakeCounters) {
        let verified = verifiedClient().verified
        if rg_SSL_session_reused(ssl) == 1 {
            if verified {
                handshakes.resumedWithCertificate.add(1, ordering: .relaxed)
            } else {
                handshakes.resumedWithoutCertificate.add(1, ordering: .relaxed)
            }
        }
        if verified {
            countedWithCertificate = true
            handshakes.withCertificate.add(1, ordering: .relaxed)
            handshakes.openWithCertificate.add(1, ordering: .relaxed)
        } else {
            handshakes.withoutCertificate.add(1, ordering: .relaxed)
        }
    }

    static func text(of nid: Int32, in name: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard rg_X509_NAME_get_text(name, nid, &buffer, Int32(buffer.count)) > 0 else { return nil }
        return String(nulTerminated: buffer)
    }

    // MARK: deadlines

    func idleDeadline() -> UInt64 {
        guard let idle = limits.idleTimeout else { return 0 }
        return lastActivity &+ idle.nanoseconds
    }

    /// Sets the deadline of the current state (0: none) and arms the loop timer if needed.
    func setDeadline(_ deadline: UInt64) {
        stateDeadline = deadline
        guard deadline != 0, deadline < armedDeadline else { return }
        armedDeadline = deadline
        loop.armDeadline(deadline, forRegistered: fd)
    }
}

extension TLSConnection: EventLoopSelectable {
    /// Readiness of the socket; called by the connection's event loop only.
    public func handleEvents(_ events: UInt32) { handleReadiness(events) }
}

extension TLSConnection: EventLoopDeadlineTarget {
    /// A deadline the connection armed came; called by the connection's event loop only.
    public func deadlineReached(_ deadline: UInt64, now: UInt64) {
        // Only the entry that is armed frees the slot; an older entry (say the handshake
        // deadline after a shorter idle deadline was armed) just re-checks below.
        if deadline == armedDeadline { armedDeadline = UInt64.max }
        guard state != .closed else { return }
        if state == .active { stateDeadline = idleDeadline() }
        guard stateDeadline != 0 else { return }
        if stateDeadline > now {
            setDeadline(stateDeadline)
            return
        }
        switch state {
        case .connecting, .handshaking: finish(.handshakeTimeout)
        case .active: finish(.idleTimeout)
        case .closing: finish(pendingCloseReason)
        case .closed: break
        }
    }
}
