import Foundation
import GatewayCore
import GatewayOperations
import GatewayPostgres
import GatewayRepositories
import GatewayService
import GatewayTransport
import Synchronization

/// The gateway's TLS port: event loops, the listener and the services
/// (reader link, SDK, fleet admin). Starts once the store is up; on the first run
/// of a fresh embedded database it creates the development account and prints
/// its secret key and the CA path once. Its shutdown is the drain, then the close.
final class ListenerService: LifecycleService {
    let name = "gateway"
    private let options: ServerOptions
    private let store: StoreService
    private let metrics: GatewayMetrics
    private let host = SynchronizedBox<GatewayServiceHost?>(nil)
    /// Runs the drain with this listener's hooks (with the ops endpoint's readiness when there is one).
    private let drain: @Sendable (DrainHooks) async -> Void
    private let logger = Logger(component: "main")

    init(options: ServerOptions, store: StoreService, metrics: GatewayMetrics, drain: @escaping @Sendable (DrainHooks) async -> Void) {
        self.options = options
        self.store = store
        self.metrics = metrics
        self.drain = drain
    }

    func run(_ context: ServiceContext) async throws {
        let client: PostgresClient
        do {
            client = try await store.started()
        } catch is CancellationError {
            return
        } catch {
            throw ListenerNotStarted(reason: "the store did not start (\(error))")
        }
        guard !context.shutdown.isSet else { return }
        do {
            try await start(client: client)
        } catch {
            await close()
            throw error
        }
        context.started()
        _ = await context.shutdown.wait()
        let drainStarted = ContinuousClock.now
        await drain(drainHooks())
        logger.info("drain finished", ["seconds": ContinuousClock.now - drainStarted])
        await close()
    }

    private func start(client: PostgresClient) async throws {
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
        service.connectBatchesInFlight = options.connectBatchesInFlight
        service.nodeName = options.nodeName
        service.nodeLease = options.nodeLease
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
        listener.webSocket.origins = options.webSocketOrigins
        let gateway = GatewayServiceHost(listener: listener, service: service, client: client, metrics: metrics)
        let address = try await gateway.start()
        host.value = gateway
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

    private func close() async {
        await host.value?.shutdown(gracePeriod: .seconds(5))
        host.value = nil
    }

    /// The gateway's part of a drain: goaway on every connection, the
    /// in-flight command count, and the sessions handed back to the store.
    func drainHooks() -> DrainHooks {
        let deadline = options.drain.inFlightDeadline
        return DrainHooks(
            sendGoAway: { [host] in host.value?.goAwayAll(gracePeriod: deadline + .seconds(1)) },
            inFlightCommands: { [host] in host.value?.inFlightCommands ?? 0 },
            whenNothingInFlight: { [host] latch in
                if let host = host.value { host.whenNoCommandsInFlight(latch) } else { latch.set() }
            },
            releaseClaims: { [host] in
                await host.value?.detachSessions()
                await host.value?.closeConnections(gracePeriod: .milliseconds(200))
            }
        )
    }
}

/// The listener did not start because something it needs did not.
struct ListenerNotStarted: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// A value behind a lock.
final class SynchronizedBox<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
