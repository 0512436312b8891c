import Foundation
import GatewayCore
import GatewayDomain
import GatewayPostgres
import GatewayService
import GatewayTransport

/// The gateway host's setup from the options, made when the host starts (the store is up by
/// then): the certificates (a development CA beside an embedded database), the listener and
/// service configurations, and what the process says once the port is open: on the first run
/// of a fresh embedded database, the development account's secret key and the CA path, once.
enum GatewayHostSetup {
    /// `burst` failures at once, then one per `period`.
    static func rule(_ option: (burst: Int, period: Duration)) -> AuthFailureRule {
        AuthFailureRule(burst: Double(option.burst), refillPerSecond: 1 / option.period.seconds)
    }

    static func make(options: ServerOptions, store: StorePart) async throws -> GatewayServiceHost.Setup {
        let client: PostgresClient
        do {
            client = try await store.started()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw GatewayNotStarted(reason: "the store did not start (\(error))")
        }
        let certificate: CertificateKeyPair
        var readerCA = options.readerCAPath
        var developmentCA: String?
        if let cert = options.tlsCertificatePath, let key = options.tlsKeyPath {
            certificate = CertificateKeyPair(certificateChainPath: cert, privateKeyPath: key)
        } else {
            // Embedded: beside the database, kept across restarts. With --database-url the data
            // directory stays unused: a throwaway development CA for this process only.
            let directory = options.databaseURL == nil
                ? (options.dataDirectory as NSString).appendingPathComponent("tls")
                : (NSTemporaryDirectory() as NSString).appendingPathComponent("reader-gateway-tls-\(getpid())")
            let development = try DevelopmentCertificates.ensure(in: directory)
            certificate = development.server
            developmentCA = development.caCertificatePath
            if readerCA == nil { readerCA = development.caCertificatePath }
        }
        var service = ServiceConfiguration()
        service.readerOfflineBound = options.readerOfflineBound
        service.sessionLease = options.sessionLease
        service.webhooks = options.webhooks
        service.connectBatchesInFlight = options.connectBatchesInFlight
        service.nodeName = options.nodeName
        service.nodeLease = options.nodeLease
        service.authFailuresPerSource = Self.rule(options.authFailuresPerSource)
        service.authFailuresPerAccount = Self.rule(options.authFailuresPerAccount)
        let internalListener = InternalListenerConfiguration(
            host: options.internalAddress, port: options.internalPort, advertiseAddress: options.advertiseAddress,
            certificateDirectory: (NSTemporaryDirectory() as NSString).appendingPathComponent("reader-gateway-internal-\(getpid())")
        )
        var listener = GatewayListenerConfiguration(
            host: options.address, port: options.port, certificate: certificate, readerCAPath: readerCA, loopCount: options.eventLoops,
            internalListener: internalListener
        )
        listener.maxHandshaking = options.maxHandshaking
        listener.maxHandshakingPerSource = options.maxHandshakingPerSource
        listener.releaseBuffersAfter = options.releaseBuffersAfter
        listener.ticketKeys = options.ticketKeys
        listener.ticketLifetime = options.ticketLifetime
        listener.webSocket.origins = options.webSocketOrigins
        return GatewayServiceHost.Setup(listener: listener, service: service, client: client) { [developmentCA] address in
            try await announce(options: options, client: client, address: address, developmentCA: developmentCA)
        }
    }

    /// The first-run notes and the notices an operator checks first, once the port is open.
    private static func announce(options: ServerOptions, client: PostgresClient, address: SocketAddress, developmentCA: String?) async throws {
        let logger = Logger(component: "main")
        if options.databaseURL == nil, let account = try await DevelopmentAccount.createIfFirstRun(client: client) {
            // Printed once, on the first run of a fresh embedded data directory; only its hash is stored.
            var lines = [
                "",
                "reader-gateway dev defaults (first run of this data directory; shown once):",
                "  account:    \(account.accountID)",
                "  secret key: \(account.secretKey)",
            ]
            if let developmentCA { lines.append("  CA:         \(developmentCA)  (clients pin it; it also signs reader certificates)") }
            lines.append("  gateway:    \(address)")
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n\n").utf8))
        }
        // Which pages may use the gateway: the first thing to check when a page's upgrade fails.
        logger.notice("browser page origins allowed (--websocket-origins)", ["origins": "\(options.webSocketOrigins)"])
        if let developmentCA {
            logger.notice("development TLS certificates (dev defaults; pass --tls-cert and --tls-key in production)", ["ca": developmentCA])
        }
    }
}

/// The gateway did not start because something it needs did not.
struct GatewayNotStarted: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
