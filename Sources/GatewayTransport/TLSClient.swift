import CGatewayLinux
import CGatewayOpenSSL
import Glibc

/// Opens TLS client connections (SDK library, reader simulator, gateway-to-gateway links).
public enum TLSClient {
    /// Starts a connection to `host:port` on `loop`; events go to the handler made by `makeHandler`.
    ///
    /// Callable from any thread. `serverName` is the name the server certificate must carry (and
    /// the SNI sent); nil uses `host` (an IP address is then checked against the certificate's IP
    /// SANs). `localHost` binds the socket to that local address first (a load generator
    /// speaking from several loopback addresses); nil leaves it to the kernel. Failures arrive
    /// as `connectionClosed(.connectFailed / .handshakeFailed)`. `sessions` keeps the session
    /// the server issues and offers the one it kept (a reader re-attaching resumes its TLS
    /// session instead of a full handshake; see ``TLSSessionCache``).
    public static func connect(
        host: String,
        port: Int,
        serverName: String? = nil,
        localHost: String? = nil,
        context: TLSContext,
        limits: ConnectionLimits = ConnectionLimits(),
        sessions: TLSSessionCache? = nil,
        on loop: EventLoop,
        makeHandler: @escaping @Sendable (TLSConnection) -> any ConnectionHandler
    ) {
        loop.execute {
            openOnLoop(
                host: host, port: port, serverName: serverName, localHost: localHost, context: context, limits: limits, sessions: sessions, loop: loop,
                makeHandler: makeHandler
            )
        }
    }

    /// Starts a connection to the resolved `address` (an outbound call that resolved and vetted
    /// its name first: webhooks); `serverName` is the name the certificate must carry.
    public static func connect(
        address: SocketAddress,
        serverName: String,
        context: TLSContext,
        limits: ConnectionLimits = ConnectionLimits(),
        on loop: EventLoop,
        makeHandler: @escaping @Sendable (TLSConnection) -> any ConnectionHandler
    ) {
        loop.execute {
            openOnLoop(
                host: address.hostText, port: address.port, resolved: address, serverName: serverName, context: context, limits: limits,
                loop: loop, makeHandler: makeHandler
            )
        }
    }

    private static func openOnLoop(
        host: String, port: Int, resolved: SocketAddress? = nil, serverName: String?, localHost: String? = nil, context: TLSContext,
        limits: ConnectionLimits, sessions: TLSSessionCache? = nil,
        loop: EventLoop, makeHandler: @Sendable (TLSConnection) -> any ConnectionHandler
    ) {
        func failedHandler(_ error: TransportError) {
            // A connection object is still made so the handler hears of the failure the usual way.
            let fd = rg_socket_nonblocking(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard let ssl = SSL_new(context.context) else {
                if fd >= 0 { Glibc.close(fd) }
                return
            }
            let connection = TLSConnection(
                fd: fd, ssl: ssl, isServer: false, verifyPeer: false, eventLoop: loop,
                limits: limits, counters: nil, peer: "\(host):\(port)", state: .connecting
            )
            connection.handler = makeHandler(connection)
            connection.finishUnregistered(.connectFailed(error))
        }
        var address: SocketAddress
        var local: SocketAddress?
        do {
            address = try resolved ?? SocketAddress(host: host, port: port)
            local = try localHost.map { try SocketAddress(host: $0, port: 0) }
        } catch {
            failedHandler(error as? TransportError ?? TransportError(.connectFailed, "\(error)"))
            return
        }
        var inProgress: Int32 = 0
        let fd: Int32
        if var local {
            fd = rg_tcp_connect_from(&address.storage, address.length, &local.storage, local.length, &inProgress)
        } else {
            fd = rg_tcp_connect(&address.storage, address.length, &inProgress)
        }
        guard fd >= 0 else {
            failedHandler(TransportError(.connectFailed, "could not connect to \(address)\(localHost.map { " from \($0)" } ?? "")", cause: OpenSSLErrors.errnoText(rg_errno())))
            return
        }
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else {
            Glibc.close(fd)
            failedHandler(TransportError(.configuration, "OpenSSL could not create a connection", cause: OpenSSLErrors.drain()))
            return
        }
        SSL_set_fd(ssl, fd)
        SSL_set_connect_state(ssl)
        let name = serverName ?? host
        let isAddress = SocketAddress.isNumeric(name)
        if !isAddress { _ = rg_SSL_set_tlsext_host_name(ssl, name) }
        if context.verifyServer {
            if isAddress {
                let trimmed = name.hasPrefix("[") ? String(name.dropFirst().dropLast()) : name
                _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), trimmed)
            } else {
                _ = SSL_set1_host(ssl, name)
            }
        }
        let connection = TLSConnection(
            fd: fd, ssl: ssl, isServer: false, verifyPeer: context.verifyServer, eventLoop: loop,
            limits: limits, counters: nil, peer: address.description, state: inProgress != 0 ? .connecting : .handshaking
        )
        if let sessions {
            sessions.attach(to: ssl)
            connection.sessionCache = sessions
        }
        let handler = makeHandler(connection)
        if !connection.start(handler: handler) {
            connection.finish(.connectFailed(TransportError(.socket, "could not register the connection with epoll", cause: OpenSSLErrors.errnoText(rg_errno()))))
            return
        }
        if inProgress == 0 { connection.advanceHandshake() }
    }
}

extension TLSConnection {
    /// Reports a failure for a connection that never reached epoll.
    func finishUnregistered(_ reason: CloseReason) {
        guard state != .closed else { return }
        state = .closed
        if fd >= 0 { Glibc.close(fd) }
        if let sslHandle {
            SSL_free(sslHandle)
            self.sslHandle = nil
        }
        let handler = self.handler
        self.handler = nil
        handler?.connectionClosed(reason, on: self)
    }
}
