import Foundation
import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRepositories
@testable import GatewayService
import GatewayTestSupport
import GatewayTransport
import GatewayWebSocket
import GatewayWire
import Testing

/// A gateway for one test: a fresh database, a dev CA, the service on a free
/// loopback port, and an account with its secret key.
final class GatewayHarness: Sendable {
    let database: TestDatabase
    let host: GatewayServiceHost
    /// The host's run, stopped by ``stop()``.
    let running: RunningPart
    let port: Int
    let directory: String
    let caPath: String
    let authority: CertificateAuthority
    let account: DevelopmentAccount
    let loops: EventLoopGroup
    let metrics: GatewayMetrics

    /// The browser origin the harness's gateway allows to open a WebSocket.
    static let allowedOrigin = "https://pos.example.com"

    /// `offlineBound`: how long a reader may stay silent before the gateway takes it offline.
    /// The default is far beyond any test's length, so that no test depends on how soon a
    /// reader's next heartbeat is sent or read on a loaded machine (a test of one raw heartbeat
    /// would otherwise have 1.5 s to observe it before the reader went offline). Tests of
    /// silence pass their own bound.
    ///
    /// `lease`: an SDK session's lease, likewise far beyond any test's length: the gateway
    /// renews its sessions' leases every third of it, and with 3 s a starved process (the whole
    /// suite at full width, under load) missed a renewal and the session expired under a test
    /// that was not about expiry (its owner gone, `SESSION_EXPIRED` in the history). Tests of
    /// expiry pass their own lease.
    ///
    /// `storePipelineDepth`: statements the gateway's store pipelines per connection (the
    /// product's default unless given). A test that blocks statements on a lock passes 1, so
    /// that a statement it waits for never queues behind another one the lock holds back.
    static func start(
        offlineBound: Duration = .seconds(300),
        lease: Duration = .seconds(300),
        discoveryBurst: Int = 5,
        discoveriesPerSecond: Double = 1,
        commandTimeout: Duration = .seconds(20),
        webSocket: WebSocketCarrierConfiguration = WebSocketCarrierConfiguration(origins: .only([GatewayHarness.allowedOrigin])),
        updateClock: WallClock = .system,
        maxQueuedBytesPerCall: Int? = nil,
        releaseBuffersAfter: Duration? = ConnectionLimits.defaultReleaseBuffersAfter,
        authFailuresPerSource: AuthFailureRule = .perSource,
        webhooks: WebhookDeliveryConfiguration = WebhookDeliveryConfiguration(),
        storePipelineDepth: Int? = nil
    ) async throws -> GatewayHarness {
        // GATEWAY_TEST_TRACE=1: every gateway's trace and the test channels' frames;
        // GATEWAY_TEST_TRACE=debug: the gateways' debug lines alone (handshake endings and
        // the like), light enough for whole repeated runs.
        switch ProcessInfo.processInfo.environment["GATEWAY_TEST_TRACE"] {
        case nil: break
        case "debug": LoggingSystem.shared.bootstrap(level: .debug, format: .logfmt)
        default: LoggingSystem.shared.bootstrap(level: .trace, format: .logfmt)
        }
        let database = try await TestPostgres.database(maximumConnections: 8, pipelineDepth: storePipelineDepth)
        let directory = TestPostgres.makeTemporaryDirectory()
        let authority = try CertificateAuthority.create(commonName: "test CA")
        let caPath = directory + "/ca.pem"
        try authority.write(certificatePath: caPath, keyPath: directory + "/ca-key.pem")
        let server = try authority.issue(
            CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: .server),
            writingTo: directory, name: "server"
        )
        var service = ServiceConfiguration()
        service.readerOfflineBound = offlineBound
        service.sessionLease = lease
        service.discoveryBurst = discoveryBurst
        service.discoveriesPerSecond = discoveriesPerSecond
        service.commandTimeout = commandTimeout
        service.updateClock = updateClock
        service.authFailuresPerSource = authFailuresPerSource
        service.webhooks = webhooks
        let metrics = GatewayMetrics(callMethods: GatewayServiceHost.methodNames, includeProcessMetrics: false)
        var listener = GatewayListenerConfiguration(host: "127.0.0.1", port: 0, certificate: server, readerCAPath: caPath, loopCount: 2)
        listener.webSocket = webSocket
        if let maxQueuedBytesPerCall { listener.maxQueuedBytesPerCall = maxQueuedBytesPerCall }
        listener.releaseBuffersAfter = releaseBuffersAfter
        let host = GatewayServiceHost(
            listener: listener,
            service: service, client: database.client, metrics: metrics, closeGracePeriod: .milliseconds(500)
        )
        let running = try await RunningPart.start(host)
        let address = try #require(host.localAddress)
        let account = try await DevelopmentAccount.create(name: "test", client: database.client)
        return GatewayHarness(
            database: database, host: host, running: running, port: address.port, directory: directory, caPath: caPath, authority: authority,
            account: account, loops: try EventLoopGroup(loopCount: 1), metrics: metrics
        )
    }

    private init(
        database: TestDatabase, host: GatewayServiceHost, running: RunningPart, port: Int, directory: String, caPath: String,
        authority: CertificateAuthority, account: DevelopmentAccount, loops: EventLoopGroup, metrics: GatewayMetrics
    ) {
        self.database = database
        self.host = host
        self.running = running
        self.port = port
        self.directory = directory
        self.caPath = caPath
        self.authority = authority
        self.account = account
        self.loops = loops
        self.metrics = metrics
    }

    func stop() async {
        try? await running.stop()
        await loops.shutdown()
        await database.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs the TLS port's idle-buffer sweep now, as if `elapsed` more time had passed
    /// (``TLSServer/sweepIdleBuffers(asIfQuietFor:)``).
    func sweepIdleBuffers(asIfQuietFor elapsed: Duration) async throws {
        try await #require(host.opened).server.sweepIdleBuffers(asIfQuietFor: elapsed)
    }

    /// Makes the TLS port's open links' last session tickets `elapsed` older
    /// (``TLSServer/ageSessionTickets(by:)``): those due a renewal get one with their next record.
    func ageSessionTickets(by elapsed: Duration) async throws {
        try await #require(host.opened).server.ageSessionTickets(by: elapsed)
    }

    /// Connections of the TLS port whose buffers were released since start.
    var buffersReleasedCount: Int { host.opened?.server.buffersReleasedCount ?? 0 }

    /// A new connection to the gateway.
    func channel(certificate: CertificateKeyPair? = nil, sessions: TLSSessionCache? = nil) async throws -> TestChannel {
        try await TestChannel.connect(port: port, caPath: caPath, certificate: certificate, sessions: sessions, loop: loops.next())
    }

    /// A client certificate from the reader CA proving `serial`.
    func readerCertificate(serial: String) throws -> CertificateKeyPair {
        try authority.issue(
            CertificateRequest(commonName: serial, subjectSerialNumber: serial, usage: .client),
            writingTo: directory, name: "reader-\(serial)"
        )
    }

    /// An admin client for the harness account (or `secretKey`).
    func admin(secretKey: String? = nil) async throws -> TestAdmin {
        TestAdmin(channel: try await channel(), secretKey: secretKey ?? account.secretKey)
    }
}

/// Fleet admin calls with a secret key.
struct TestAdmin: Sendable {
    let channel: TestChannel
    let secretKey: String
    typealias Admin = ReaderGatewayV1.FleetAdmin

    func call<Request, Response>(_ method: ProtobufMethod<Request, Response>, _ request: Request) async throws -> Response {
        try await channel.unary(method, request, metadata: bearer(secretKey))
    }

    func createLocation(_ name: String) async throws -> String {
        var request = ReaderGatewayV1.CreateLocationRequest()
        request.displayName = name
        return try await call(Admin.createLocation, request).location!.id
    }

    func connectionToken(location: String? = nil, ttlMs: Int64 = 0) async throws -> String {
        var request = ReaderGatewayV1.CreateConnectionTokenRequest()
        request.locationID = location ?? ""
        request.ttlMs = ttlMs
        return try await call(Admin.createConnectionToken, request).secret
    }

    func registerSerials(_ serials: [String], prefix: String, location: String) async throws -> [ReaderGatewayV1.Reader] {
        var request = ReaderGatewayV1.RegisterReadersBySerialRequest()
        request.serialNumbers = serials
        request.labelPrefix = prefix
        request.locationID = location
        request.deviceType = .simulatedWiseposE
        return try await call(Admin.registerReadersBySerial, request).readers
    }

    func registerCode(_ code: String, label: String, location: String) async throws -> ReaderGatewayV1.Reader {
        var request = ReaderGatewayV1.RegisterReaderRequest()
        request.registrationCode = code
        request.label = label
        request.locationID = location
        return try await call(Admin.registerReader, request).reader!
    }

    func ownership(of reader: String) async throws -> ReaderGatewayV1.ReaderOwnership {
        var request = ReaderGatewayV1.GetReaderRequest()
        request.readerID = reader
        return try await call(Admin.getReader, request).ownership!
    }

    func history(of reader: String) async throws -> [ReaderGatewayV1.OwnershipHistoryEntry] {
        var request = ReaderGatewayV1.ListOwnershipHistoryRequest()
        request.readerID = reader
        return try await call(Admin.listOwnershipHistory, request).entries
    }
}

/// Expects `body` to fail with `reason`.
func expectFailure<T>(
    _ reason: ReaderGatewayV1.ErrorReason,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected \(reason), the call succeeded", sourceLocation: sourceLocation)
    } catch let failure as CallFailure {
        #expect(failure.reason == reason, "\(failure)", sourceLocation: sourceLocation)
        #expect(failure.code == reason.statusCode, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(reason), got \(error)", sourceLocation: sourceLocation)
    }
}

