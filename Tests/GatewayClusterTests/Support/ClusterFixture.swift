import Foundation
import GatewayClient
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport
import GatewayTransport
import GatewayWire
import GatewayWireClients
import Synchronization
import Testing

/// How the cluster under test runs.
struct ClusterOptions: Sendable {
    var replicas = 3
    /// `--node-lease`: a replica silent this long is dead.
    var nodeLease: Duration = .seconds(3)
    /// `--reader-offline-bound`: how long a detached reader keeps its owner while it re-attaches.
    /// No cluster test is about the bound itself (the single-replica link tests are); every one
    /// asserts that owners are kept across a fault, which the product promises for a reader
    /// back within the bound. A generous bound keeps that premise true on a starved machine
    /// (a replica killed, its lease run out, the reader's re-attach queued behind a busy CPU).
    var readerOfflineBound: Duration = .seconds(20)
    /// `--session-lease`: a lane's resume window.
    var sessionLease: Duration = .seconds(15)
    /// `--drain-deadline-seconds`.
    var drainDeadlineSeconds = 5
    /// A hard bound on the whole test: past it the watchdog prints the logs, kills the
    /// cluster's processes and ends the test process (a stuck test must fail, not hang).
    var watchdog: Duration = .seconds(300)
    /// A PostgreSQL primary with a streaming standby replicated this way, instead of one
    /// server (``ClusterPostgres/failOver()``).
    var replication: ReplicatedPostgres.Replication?
    /// The `reader-gateway` every replica starts with (nil: this package's); with one, the
    /// replicas migrate the database themselves (nil: the fixture migrates it first).
    var binary: String?
    /// More `reader-gateway` options for every replica (ones its binary knows: webhook delivery
    /// settings, the guessing limiter's rules).
    var extraArguments: [String] = []
}

/// Three (or N) `reader-gateway` replicas as real processes on loopback, sharing one
/// PostgreSQL the fixture can restart, behind nginx `stream` (round robin) standing in for the
/// Kubernetes Service; one CA for the server certificate and the readers' client
/// certificates; one account, one location and a connection token.
///
/// ```swift
/// try await ClusterFixture.run { cluster in
///     let readers = try await cluster.attachReaders(2, port: cluster.balancerPort)
///     let lane = try await cluster.lane("Lane 1", port: cluster.replicas[1].port)
///     ...
/// }
/// ```
/// Every process is stopped when the body returns or throws; when a check failed (see
/// ``expect(_:_:sourceLocation:)``) or the body threw, the tails of every log are printed.
final class ClusterFixture: Sendable {
    let options: ClusterOptions
    let directory: String
    let postgres: ClusterPostgres
    let database: ClusterDatabase
    let certificates: ClusterCertificates
    let replicas: [Replica]
    let balancerPort: Int
    let group: EventLoopGroup
    private let balancerBox = Mutex<LoadBalancer?>(nil)
    private let setup = Mutex<Setup?>(nil)
    private let failed = Atomic<Bool>(false)
    private let owned = Mutex<(readers: [ClusterReader], lanes: [ClusterLane])>(([], []))

    struct Setup: Sendable {
        var accountID: String
        var secretKey: String
        var location: String
        var token: String
    }

    private init(options: ClusterOptions, directory: String, postgres: ClusterPostgres, certificates: ClusterCertificates, replicas: [Replica], balancerPort: Int, group: EventLoopGroup) {
        self.options = options
        self.directory = directory
        self.postgres = postgres
        database = ClusterDatabase(postgres: postgres)
        self.certificates = certificates
        self.replicas = replicas
        self.balancerPort = balancerPort
        self.group = group
    }

    // MARK: life cycle

    /// Starts a cluster, runs `body`, and stops everything whatever happens.
    static func run(_ options: ClusterOptions = ClusterOptions(), _ body: (ClusterFixture) async throws -> Void) async throws {
        let watchdog = Watchdog(limit: options.watchdog)
        let cluster = try await start(options)
        watchdog.arm(cluster)
        defer { watchdog.disarm() }
        do {
            try await body(cluster)
        } catch {
            cluster.failed.store(true, ordering: .relaxed)
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    /// Every process of the cluster, for the watchdog.
    var pids: [pid_t] {
        replicas.compactMap(\.pid) + [balancerBox.withLock { $0?.process.process.pid }].compactMap { $0 } + postgres.serverPIDs
    }

    static func start(_ options: ClusterOptions) async throws -> ClusterFixture {
        let directory = TestPostgres.makeTemporaryDirectory()
        chmod(directory, 0o755)
        let postgres = try await ClusterPostgres.start(in: directory + "/pg", replication: options.replication, migrate: options.binary == nil)
        let started = ContinuousClock.now
        let certificates = try ClusterCertificates(directory: directory + "/tls")
        let ports = try Loopback.freePorts(options.replicas * 3 + 1)
        var replicas: [Replica] = []
        for index in 0..<options.replicas {
            let name = "r\(index + 1)"
            let (port, internalPort, ops) = (ports[index * 3], ports[index * 3 + 1], ports[index * 3 + 2])
            let arguments = [
                "--database-url", postgres.connectionString,
                "--address", "127.0.0.1", "--port", "\(port)",
                "--ops-address", "127.0.0.1", "--ops-port", "\(ops)",
                "--tls-cert", certificates.server.certificateChainPath, "--tls-key", certificates.server.privateKeyPath,
                "--reader-ca", certificates.caPath,
                "--reader-offline-bound", Self.text(options.readerOfflineBound),
                "--session-lease", Self.text(options.sessionLease),
                "--drain-deadline-seconds", "\(options.drainDeadlineSeconds)",
                "--database-pool-size", "4", "--event-loops", "1",
                "--node-name", name, "--internal-address", "127.0.0.1", "--internal-port", "\(internalPort)",
                "--advertise-address", "127.0.0.1", "--node-lease", Self.text(options.nodeLease),
            ] + options.extraArguments
            replicas.append(Replica(name: name, ports: (port, internalPort, ops), directory: directory, arguments: arguments, binary: options.binary))
        }
        let cluster = ClusterFixture(
            options: options, directory: directory, postgres: postgres, certificates: certificates, replicas: replicas,
            balancerPort: ports[options.replicas * 3], group: try EventLoopGroup(loopCount: 2)
        )
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for replica in replicas { group.addTask { try await replica.start() } }
                try await group.waitForAll()
            }
            let balancer = try await LoadBalancer.start(port: cluster.balancerPort, upstreams: replicas.map(\.port), directory: directory + "/nginx")
            cluster.balancerBox.withLock { $0 = balancer }
            try await withDeadline(.seconds(60), "creating the account, location and token") { try await cluster.prepareAccount() }
        } catch {
            cluster.failed.store(true, ordering: .relaxed)
            await cluster.shutdown()
            throw error
        }
        print("cluster: \(replicas.count) replicas (\(replicas.map { "\($0.name)=:\($0.port)" }.joined(separator: " "))) behind nginx :\(cluster.balancerPort), ready in \(seconds(ContinuousClock.now - started))")
        return cluster
    }


    private func prepareAccount() async throws {
        let account = try await database.withClient { client in try await Accounts.create(name: "cluster test", client: client) }
        let admin = AdminClient(connection: GatewayConnection(channelConfiguration(port: replicas[0].port), group: group), secretKey: account.secretKey)
        let location = try await admin.createLocation(displayName: "Cluster street")
        let token = try await admin.createConnectionToken(locationID: location.id, ttl: .seconds(3_600))
        admin.connection.close()
        setup.withLock { $0 = Setup(accountID: account.id, secretKey: account.secretKey, location: location.id, token: token.secret) }
    }

    /// Stops every client and process, prints the logs when something failed, removes the files.
    func shutdown() async {
        let (readers, lanes) = owned.withLock { ($0.readers, $0.lanes) }
        for reader in readers { reader.stop() }
        for replica in replicas { await replica.destroy() }
        await balancerBox.withLock { $0 }?.stop()
        await withTaskGroup(of: Void.self) { group in
            for lane in lanes { group.addTask { await lane.close() } }
        }
        await group.shutdown()
        if failed.load(ordering: .relaxed) || ProcessInfo.processInfo.environment["CLUSTER_TEST_LOGS"] != nil {
            printLogs()
        }
        await postgres.stop()
        if !failed.load(ordering: .relaxed) { try? FileManager.default.removeItem(atPath: directory) }
    }

    func printLogs(lines: Int = 40) {
        var report = "==== cluster logs (\(directory)) ====\n"
        for replica in replicas { report += replica.tails(lines) + "\n" }
        if let balancer = balancerBox.withLock({ $0 }) { report += "---- nginx ----\n" + balancer.errorLog.split(separator: "\n").suffix(10).joined(separator: "\n") + "\n" }
        report += "---- postgres ----\n" + postgres.tail(15) + "\n"
        print(report)
    }

    // MARK: checks

    /// Records an issue (and keeps the logs) when `condition` is false.
    /// Whether every replica's `/readyz` says plain `ready` within `timeout`, asked every `interval`.
    func everyReplicaReady(within timeout: Duration, checkingEvery interval: Duration) async -> Bool {
        await eventuallyIgnoringErrors(timeout: timeout, interval: interval) {
            for replica in self.replicas where !(await replica.isReady()) { return false }
            return true
        }
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard !condition else { return }
        failed.store(true, ordering: .relaxed)
        Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation)
    }

    /// Like ``expect(_:_:sourceLocation:)`` but throws, ending the test.
    func require(_ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard !condition else { return }
        failed.store(true, ordering: .relaxed)
        let text = message()
        Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
        throw ClusterError(text)
    }

    var hasFailed: Bool { failed.load(ordering: .relaxed) }

    // MARK: clients

    var accountID: String { setup.withLock { $0!.accountID } }
    var location: String { setup.withLock { $0!.location } }
    var token: String { setup.withLock { $0!.token } }
    var secretKey: String { setup.withLock { $0!.secretKey } }

    func channelConfiguration(port: Int) -> ClientChannelConfiguration {
        var configuration = ClientChannelConfiguration(host: "127.0.0.1", port: port, trustedCAPath: certificates.caPath)
        configuration.connectTimeout = .seconds(2)
        return configuration
    }

    /// An admin client on `port` (default: the load balancer).
    func admin(port: Int? = nil, secretKey: String? = nil) -> AdminClient {
        AdminClient(
            connection: GatewayConnection(channelConfiguration(port: port ?? balancerPort), group: group), secretKey: secretKey ?? self.secretKey, timeout: .seconds(10)
        )
    }

    /// Opens a lane's session on `port` (a replica's, or the load balancer's).
    func lane(_ label: String, port: Int) async throws -> ClusterLane {
        let lane = try await ClusterLane.open(label: label, port: port, caPath: certificates.caPath, token: token, group: group)
        owned.withLock { $0.lanes.append(lane) }
        return lane
    }

    /// Registers `count` readers by serial and attaches each over mutual TLS to
    /// `ports[i % ports.count]` (with `fallback` ports after it, in order, for re-attaching
    /// when that one is gone), waiting until the gateway accepted every link.
    func attachReaders(_ count: Int, ports: [Int], fallback: [Int] = [], prefix: String = "CLU", holdCollects: Bool = false) async throws -> [ClusterReader] {
        let serials = (0..<count).map { "\(prefix)\(String(format: "%06d", $0 + 1))" }
        let registered = try await withAdmin { admin in
            try await admin.registerReaders(serials: serials, labelPrefix: prefix, locationID: self.location)
        }
        try require(registered.count == count, "registered \(registered.count) of \(count) readers")
        var readers: [ClusterReader] = []
        for (index, serial) in serials.enumerated() {
            let reader = ClusterReader(
                serial: serial, ports: [ports[index % ports.count]] + fallback, caPath: certificates.caPath,
                certificate: try certificates.reader(serial), group: group, holdCollects: holdCollects
            )
            owned.withLock { $0.readers.append(reader) }
            reader.start()
            readers.append(reader)
        }
        for reader in readers {
            try require(
                await reader.waitForAttachment(after: 0, timeout: .seconds(15)),
                "reader \(reader.serial) did not attach to :\(reader.port): \(reader.linkEnds.suffix(3))"
            )
        }
        return readers
    }

    /// Runs `body` with an admin client on the load balancer, closed afterwards.
    func withAdmin<T: Sendable>(port: Int? = nil, _ body: (AdminClient) async throws -> T) async throws -> T {
        let admin = admin(port: port)
        defer { admin.connection.close() }
        return try await body(admin)
    }

    // MARK: where things live

    /// The replica whose node id is `node` (node ids are `<name>-<suffix>`).
    func replica(ofNode node: String?) -> Replica? {
        guard let node else { return nil }
        return replicas.first { replica in replica.nodeIDs.contains(node) || node.hasPrefix(replica.name + "-") }
    }

    static func text(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        let millis = whole * 1000 + fraction / 1_000_000_000_000_000
        return millis % 1000 == 0 ? "\(millis / 1000)s" : "\(millis)ms"
    }
}
