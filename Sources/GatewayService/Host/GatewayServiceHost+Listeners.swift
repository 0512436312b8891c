import Foundation
import GatewayCore
import GatewayTransport
import GatewayWire

extension GatewayServiceHost {
    /// Opens the internal listener (replica link), joins the node directory, then opens the TLS
    /// port. On a failure, what was opened is closed again before the error is thrown.
    func open(_ gateway: Gateway, listener: GatewayListenerConfiguration, loops: EventLoopGroup) async throws -> OpenedGateway {
        let advertisedHost = try Self.advertisedHost(listener.internalListener)
        let internalServer = try await startInternalListener(gateway, listener.internalListener, loops: loops, advertising: advertisedHost)
        do {
            guard let port = internalServer.localAddress?.port else { throw InternalCertificateError("the internal listener has no bound port") }
            let advertised = GatewayAddress(host: advertisedHost, port: port).description
            // Registered before the first reader can attach (an attach names this node).
            try await gateway.cluster.register(node: gateway.node.id, internalAddress: advertised)
            logger.notice("node registered", ["node": gateway.node.id, "internal": advertised, "version": GatewayVersion.current.description])
            await logReleasesAlongside(gateway)
            let server = try startPublicListener(gateway, listener, loops: loops)
            let address = try server.start()
            logger.info("gateway listening", [
                "address": address.description, "internal": advertised, "node": gateway.node.id,
                "reader_ca": listener.readerCAPath ?? "none",
            ])
            return OpenedGateway(gateway: gateway, server: server, internalServer: internalServer, address: address, advertised: advertised)
        } catch {
            await internalServer.shutdown(gracePeriod: .zero)
            throw error
        }
    }

    /// The replica link listener: only clients with a certificate from the
    /// cluster's internal CA get through the handshake.
    private func startInternalListener(
        _ gateway: Gateway, _ configuration: InternalListenerConfiguration, loops: EventLoopGroup, advertising advertisedHost: String
    ) async throws -> TLSServer {
        let directory = configuration.certificateDirectory
            ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("reader-gateway-internal-\(getpid())-\(ObjectIdentifier(self).hashValue & 0xffff)")
        let certificates = try await InternalCertificates.prepare(
            cluster: gateway.cluster, nodeID: gateway.node.id, advertiseAddress: advertisedHost, directory: directory
        )
        gateway.replicas.configure(certificates)
        let server = CallServer(
            router: gateway.replicaRoutes,
            connectionConfiguration: ConnectionConfiguration(role: .server),
            metrics: GatewayCallMetrics(metrics: gateway.metrics)
        )
        var limits = ConnectionLimits()
        limits.idleTimeout = nil
        var tls = TLSServerConfiguration(
            host: configuration.host, port: configuration.port, certificates: [certificates.server],
            clientAuthentication: .required(trustedCAPath: certificates.caPath),
            alpnProtocols: [GatewayServiceHost.alpnProtocol],
            limits: limits
        )
        tls.sessionTickets = 0
        let listener = try TLSServer(configuration: tls, group: loops) { connection in server.makeConnection(connection) }
        _ = try listener.start()
        return listener
    }

    private func startPublicListener(_ gateway: Gateway, _ listener: GatewayListenerConfiguration, loops: EventLoopGroup) throws -> TLSServer {
        var webSocket = listener.webSocket
        webSocket.http = GatewayHTTPResponder(console: ConsoleResponder(database: gateway.database, metrics: gateway.metrics, limiter: gateway.limiter))
        let server = CallServer(
            router: gateway.routes,
            connectionConfiguration: ConnectionConfiguration(role: .server, maxQueuedBytesPerStream: listener.maxQueuedBytesPerCall),
            metrics: GatewayCallMetrics(metrics: gateway.metrics),
            webSocket: webSocket,
            connectionClosed: { gateway.connectionClosed($0) }
        )
        var limits = ConnectionLimits()
        limits.idleTimeout = nil
        limits.maxHandshaking = listener.maxHandshaking
        limits.maxHandshakingPerSource = listener.maxHandshakingPerSource
        limits.releaseBuffersAfter = listener.releaseBuffersAfter
        var configuration = TLSServerConfiguration(
            host: listener.host, port: listener.port, certificates: [listener.certificate],
            clientAuthentication: listener.readerCAPath.map { .optional(trustedCAPath: $0) } ?? .none,
            // Browsers offer h2 and http/1.1 (the WebSocket binding is HTTP/1.1); a client
            // offering neither protocol is refused in the handshake.
            alpnProtocols: [GatewayServiceHost.alpnProtocol, GatewayServiceHost.httpAlpnProtocol],
            limits: limits
        )
        // One TLS 1.3 session ticket per handshake: a reader that loses its link (its replica
        // died) re-attaches with it and resumes (PSK with ECDHE) instead of a full handshake
        // with certificate verification, on any replica that shares the ticket keys. The
        // reader's registration is checked at attach as always; its certificate's expiry by
        // the ticket check (TLSContext).
        configuration.sessionTickets = 1
        configuration.ticketKeys = listener.ticketKeys
        configuration.ticketLifetime = listener.ticketLifetime
        return try TLSServer(configuration: configuration, group: loops) { connection in server.makeConnection(connection) }
    }

    /// The host other replicas dial (and the internal certificate names), checked before
    /// anything starts: a wildcard bind needs an explicit advertise address.
    private static func advertisedHost(_ configuration: InternalListenerConfiguration) throws -> String {
        let host = configuration.advertiseAddress ?? configuration.host
        guard host != "0.0.0.0", host != "::" else {
            throw InternalCertificateError("--advertise-address is required when the internal listener binds \(host): other replicas must know where to dial")
        }
        return host
    }
}
