import GatewayOperations
@testable import GatewayService
import GatewayWire
import Testing

/// The fleet admin surface on the same replica, store, registry and clock as a ``LocalSDK``
/// (whose sessions own the readers an admin looks at or releases). Its routes are called as
/// the router calls them: the request encoded, the answer decoded, with no socket, no
/// PostgreSQL and no wait.
struct LocalFleetAdmin {
    static let secretKey = "sk_local_admin"

    let lanes: LocalSDK
    let admin: FleetAdminService
    var store: InMemoryStore { lanes.store }

    init(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) {
        let lanes = LocalSDK(configure)
        let store = lanes.store
        store.addAccount(LocalSDK.account, secretKey: Self.secretKey)
        self.lanes = lanes
        admin = FleetAdminService(
            configuration: lanes.configuration, accounts: store, consoleSessions: store, locations: store, readerRecords: store, registrations: store,
            codes: store, tokens: store, ownership: store, linkEndings: store, cluster: store, registry: lanes.registry,
            node: lanes.node, replicas: ReplicaChannels(group: EventLoopGroupBox()), metrics: lanes.metrics, updates: lanes.updates,
            fleet: lanes.fleet, events: store, audit: store,
            limiter: AuthenticationLimiter(
                buckets: store, perSource: lanes.configuration.authFailuresPerSource, perAccount: lanes.configuration.authFailuresPerAccount,
                clock: lanes.configuration.clock, metrics: lanes.metrics.authentication
            )
        )
    }

    /// Calls `route` with `request` as the account's backend does (`authorization: Bearer
    /// <key>`; nil: no header), or from a console page (`console`: its session token and the
    /// CSRF token it sends, if any), from `peer` (`host:port`; nil: the in-memory connection's name).
    func call<Request, Response>(
        _ route: UnaryRoute<Request, Response>, _ request: Request, key: String? = Self.secretKey,
        console: (session: String, csrf: String?)? = nil, method: String = "", peer: String? = nil
    ) async throws -> Response {
        guard case .unary(let body) = route.handler else {
            Issue.record("\(Request.protoMessageName) is not served as a unary method")
            throw ServiceError.invalid("not a unary route")
        }
        var metadata: [ReaderGatewayV1.MetadataEntry] = []
        func add(_ key: String, _ value: String) {
            var entry = ReaderGatewayV1.MetadataEntry()
            entry.key = key
            entry.value = Array(value.utf8)
            metadata.append(entry)
        }
        if let key { add("authorization", "Bearer \(key)") }
        if let csrf = console?.csrf { add("x-csrf-token", csrf) }
        var context = lanes.context(method: method)
        context.metadata = metadata
        context.consoleSessionToken = console?.session
        if let peer { context.peer = peer }
        return try Response(serializedBytes: try await body(request.serializedBytes(), context))
    }

    /// A location of the account, created through the admin surface; returns its id.
    func createLocation(_ name: String = "Front") async throws -> String {
        var request = ReaderGatewayV1.CreateLocationRequest()
        request.displayName = name
        return try await call(admin.createLocation, request).location?.id ?? ""
    }

    /// A lane's session connected to `reader` (online at `location`); returns its resume token.
    func laneOwning(_ reader: String, at location: String, device: String = "pos-1") async throws -> String {
        store.addReader(reader, account: LocalSDK.account, location: location)
        let token = try await lanes.openSession(device: device)
        try await lanes.discover(token, location: location)
        _ = try await lanes.connect(token, reader: reader)
        return token
    }
}
