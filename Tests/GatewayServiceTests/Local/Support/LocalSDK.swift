import GatewayOperations
import GatewayRepositories
@testable import GatewayService
import GatewayWire
import Testing

/// The SDK surface on one replica with its stores in memory and a manual clock: its handlers
/// are called as the router would call them, with no socket, no PostgreSQL and no wait.
struct LocalSDK {
    static let account = "acct_local"

    let clock = ManualClock()
    let store: InMemoryStore
    let configuration: ServiceConfiguration
    let registry: LiveRegistry
    let follower: LocalOwnershipFollower
    let fleet = RecordedFleetChanges()
    let node = NodeIdentity(name: "local")
    let metrics = GatewayMetrics(includeProcessMetrics: false)
    let updates: SoftwareUpdateCatalog
    let sdk: SDKService

    init(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) {
        let clock = self.clock
        var configuration = ServiceConfiguration()
        configuration.clock = clock
        configuration.updateClock = WallClock { clock.nowUnixMs }
        configure(&configuration)
        let store = InMemoryStore(clock: clock)
        let registry = LiveRegistry(commandTimeout: configuration.commandTimeout, clock: clock)
        let follower = LocalOwnershipFollower(store: store)
        self.store = store
        self.configuration = configuration
        self.registry = registry
        self.follower = follower
        let updates = SoftwareUpdateCatalog(store: store, clock: configuration.updateClock, cacheClock: clock)
        self.updates = updates
        sdk = SDKService(
            configuration: configuration, sessions: store, tokens: store, readerRecords: store, locations: store, ownership: store,
            connects: store, cluster: store,
            bluetooth: store, tapToPay: store, registry: registry, metrics: metrics, node: node,
            replicas: ReplicaChannels(group: EventLoopGroupBox()), follower: follower, updates: updates, fleet: fleet, events: store
        )
    }

    /// What a call on connection `connection` tells its handler.
    func context(connection: UInt64 = 1, method: String = "") -> CallContext {
        CallContext(method: method, metadata: [], connectionID: connection, peer: "in-memory:\(connection)", verifiedClientIdentity: nil)
    }

    /// Opens a session for `device` with a fresh token of the account (limited to `location`
    /// when given) on `connection`; returns its resume token.
    func openSession(device: String = "pos-1", location: String? = nil, connection: UInt64 = 1) async throws(ServiceError) -> String {
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = store.addConnectionToken(account: Self.account, location: location)
        request.posDeviceID = device
        return try await sdk.sessions.openSession(request, context(connection: connection)).sessionToken
    }

    /// Discovers readers at `location` on the session; returns the answer.
    @discardableResult
    func discover(_ token: String, location: String = "", connection: UInt64 = 1) async throws(ServiceError) -> ReaderGatewayV1.DiscoverReadersResponse {
        var request = ReaderGatewayV1.DiscoverReadersRequest()
        request.sessionToken = token
        request.locationID = location
        return try await sdk.discovery.discoverReaders(request, context(connection: connection))
    }

    /// Discovers the one reader `filter` names (reader id, serial number) at `location`.
    @discardableResult
    func discover(
        _ token: String, location: String = "", readerID: String = "", serial: String = "", connection: UInt64 = 1
    ) async throws(ServiceError) -> ReaderGatewayV1.DiscoverReadersResponse {
        var request = ReaderGatewayV1.DiscoverReadersRequest()
        request.sessionToken = token
        request.locationID = location
        var filter = ReaderGatewayV1.DiscoveryFilter()
        filter.readerID = readerID
        filter.serialNumber = serial
        request.filter = filter
        return try await sdk.discovery.discoverReaders(request, context(connection: connection))
    }

    /// EasyConnect of the reader named by id or serial at `location`.
    func easyConnect(
        _ token: String, location: String = "", readerID: String = "", serial: String = "", failIfInUse: Bool = false, connection: UInt64 = 1
    ) async throws(ServiceError) -> ReaderGatewayV1.EasyConnectResponse {
        var request = ReaderGatewayV1.EasyConnectRequest()
        request.sessionToken = token
        request.locationID = location
        var filter = ReaderGatewayV1.DiscoveryFilter()
        filter.readerID = readerID
        filter.serialNumber = serial
        request.filter = filter
        request.failIfInUse = failIfInUse
        return try await sdk.easy.easyConnect(request, context(connection: connection))
    }

    func connect(
        _ token: String, reader: String, failIfInUse: Bool = false, discoveryID: String = "", connection: UInt64 = 1
    ) async throws(ServiceError) -> ReaderGatewayV1.ConnectReaderResponse {
        var request = ReaderGatewayV1.ConnectReaderRequest()
        request.sessionToken = token
        request.readerID = reader
        request.failIfInUse = failIfInUse
        request.discoveryID = discoveryID
        return try await sdk.connect.connectReader(request, context(connection: connection))
    }

    func disconnect(_ token: String, connection: UInt64 = 1) async throws(ServiceError) {
        var request = ReaderGatewayV1.DisconnectReaderRequest()
        request.sessionToken = token
        _ = try await sdk.connect.disconnectReader(request, context(connection: connection))
    }

    /// A location with `readers` (ids) online in it, for the account.
    func location(_ id: String, readers: [String]) {
        store.addLocation(id, account: Self.account)
        for reader in readers { store.addReader(reader, account: Self.account, location: id) }
    }
}

/// The error `body` failed with (nil: it succeeded; an error of another type is a test failure).
/// A handler called directly throws its ``ServiceError``; one called through its route (as the
/// call layer serves it) throws the `RPCError` of the status the wire carries, read back here
/// as the service's error after checking that its canonical code is the one its reason implies.
func failure<T>(_ body: () async throws -> T) async -> ServiceError? {
    do {
        _ = try await body()
        return nil
    } catch let error as ServiceError {
        return error
    } catch let error as RPCError {
        let served = ServiceError(error.reason, error.message, retryAfter: error.retryAfterMs > 0 ? .milliseconds(error.retryAfterMs) : nil)
        #expect(error.code == served.status.code, "the status \(error) carries a code its reason \(error.reason) does not imply")
        return served
    } catch {
        Issue.record("failed with \(error), which is neither a ServiceError nor an RPCError")
        return nil
    }
}
