import GatewayChannel
import GatewayClientCore
import GatewayWire

/// The fleet admin surface (`FleetAdmin` in admin.proto), authenticated by the account's
/// secret key (`authorization: Bearer <secret key>` on every call).
///
/// Read calls (list, get) are retried on UNAVAILABLE; writes only when the call certainly
/// was not processed. Every failure is an ``RPCError``.
public struct AdminClient: Sendable {
    /// The gateway connection calls go over.
    public let connection: GatewayConnection
    let secretKey: String
    /// The deadline of each call.
    public var timeout: Duration

    public init(connection: GatewayConnection, secretKey: String, timeout: Duration = .seconds(15)) {
        self.connection = connection
        self.secretKey = secretKey
        self.timeout = timeout
    }

    func call<Request, Response>(_ method: ProtobufMethod<Request, Response>, _ request: Request, idempotent: Bool) async throws -> Response {
        try await connection.unary(method, request, metadata: [.bearer(secretKey)], timeout: timeout, idempotent: idempotent)
    }

    // MARK: locations

    /// Creates a location.
    public func createLocation(displayName: String, address: ReaderGatewayV1.Address? = nil) async throws -> ReaderGatewayV1.Location {
        var request = ReaderGatewayV1.CreateLocationRequest()
        request.displayName = displayName
        request.address = address
        return try await call(ReaderGatewayV1.FleetAdmin.createLocation, request, idempotent: false).location ?? ReaderGatewayV1.Location()
    }

    /// Lists every location of the account (following pages).
    public func listLocations() async throws -> [ReaderGatewayV1.Location] {
        var locations: [ReaderGatewayV1.Location] = []
        var request = ReaderGatewayV1.ListLocationsRequest()
        for _ in 0..<10_000 {
            let page = try await call(ReaderGatewayV1.FleetAdmin.listLocations, request, idempotent: true)
            locations += page.locations
            guard !page.nextPageToken.isEmpty else { break }
            request.pageToken = page.nextPageToken
        }
        return locations
    }

    /// Changes a location's display name and/or address.
    public func updateLocation(_ locationID: String, displayName: String? = nil, address: ReaderGatewayV1.Address? = nil) async throws -> ReaderGatewayV1.Location {
        var request = ReaderGatewayV1.UpdateLocationRequest()
        request.locationID = locationID
        request.displayName = displayName
        request.address = address
        return try await call(ReaderGatewayV1.FleetAdmin.updateLocation, request, idempotent: true).location ?? ReaderGatewayV1.Location()
    }

    // MARK: readers

    /// Registers the reader showing `code`.
    public func registerReader(code: String, label: String, locationID: String) async throws -> ReaderGatewayV1.Reader {
        var request = ReaderGatewayV1.RegisterReaderRequest()
        request.registrationCode = code
        request.label = label
        request.locationID = locationID
        return try await call(ReaderGatewayV1.FleetAdmin.registerReader, request, idempotent: false).reader ?? ReaderGatewayV1.Reader()
    }

    /// Registers readers by serial number; with a label prefix they are named "Prefix 1", "Prefix 2", ...
    public func registerReaders(
        serials: [String], labelPrefix: String, locationID: String, deviceType: ReaderGatewayV1.DeviceType = .unspecified
    ) async throws -> [ReaderGatewayV1.Reader] {
        var request = ReaderGatewayV1.RegisterReadersBySerialRequest()
        request.serialNumbers = serials
        request.labelPrefix = labelPrefix
        request.locationID = locationID
        request.deviceType = deviceType
        return try await call(ReaderGatewayV1.FleetAdmin.registerReadersBySerial, request, idempotent: false).readers
    }

    /// Unregisters a reader.
    public func deleteReader(_ readerID: String) async throws {
        var request = ReaderGatewayV1.DeleteReaderRequest()
        request.readerID = readerID
        _ = try await call(ReaderGatewayV1.FleetAdmin.deleteReader, request, idempotent: true)
    }

    /// Lists readers with live status (following pages).
    public func listReaders(locationID: String = "", networkStatus: ReaderGatewayV1.ReaderNetworkStatus = .unspecified) async throws -> [ReaderGatewayV1.Reader] {
        var readers: [ReaderGatewayV1.Reader] = []
        var request = ReaderGatewayV1.ListReadersRequest()
        request.locationID = locationID
        request.networkStatus = networkStatus
        for _ in 0..<10_000 {
            let page = try await call(ReaderGatewayV1.FleetAdmin.listReaders, request, idempotent: true)
            readers += page.readers
            guard !page.nextPageToken.isEmpty else { break }
            request.pageToken = page.nextPageToken
        }
        return readers
    }

    /// One reader with its live status and ownership.
    public func getReader(_ readerID: String) async throws -> ReaderGatewayV1.GetReaderResponse {
        var request = ReaderGatewayV1.GetReaderRequest()
        request.readerID = readerID
        return try await call(ReaderGatewayV1.FleetAdmin.getReader, request, idempotent: true)
    }

    // MARK: ownership

    /// Who owns each reader (of a location, or of the account) right now.
    public func listOwnership(locationID: String = "", ownedOnly: Bool = false) async throws -> [ReaderGatewayV1.ReaderOwnership] {
        var request = ReaderGatewayV1.ListReaderOwnershipRequest()
        request.locationID = locationID
        request.ownedOnly = ownedOnly
        return try await call(ReaderGatewayV1.FleetAdmin.listReaderOwnership, request, idempotent: true).ownerships
    }

    /// One page of the account's event log, newest first (filters and page token in `request`).
    public func listEvents(_ request: ReaderGatewayV1.ListEventsRequest) async throws -> ReaderGatewayV1.ListEventsResponse {
        try await call(ReaderGatewayV1.FleetAdmin.listEvents, request, idempotent: true)
    }

    /// One page of the account's audit log, newest first (filters and page token in `request`).
    public func listAuditEvents(_ request: ReaderGatewayV1.ListAuditEventsRequest) async throws -> ReaderGatewayV1.ListAuditEventsResponse {
        try await call(ReaderGatewayV1.FleetAdmin.listAuditEvents, request, idempotent: true)
    }

    /// One event of the account's log.
    public func getEvent(_ eventID: String) async throws -> ReaderGatewayV1.Event {
        var request = ReaderGatewayV1.GetEventRequest()
        request.eventID = eventID
        return try await call(ReaderGatewayV1.FleetAdmin.getEvent, request, idempotent: true).event ?? ReaderGatewayV1.Event()
    }

    /// A reader's ownership changes, newest first.
    public func ownershipHistory(readerID: String, limit: UInt32 = 0) async throws -> [ReaderGatewayV1.OwnershipHistoryEntry] {
        var request = ReaderGatewayV1.ListOwnershipHistoryRequest()
        request.readerID = readerID
        request.limit = limit
        return try await call(ReaderGatewayV1.FleetAdmin.listOwnershipHistory, request, idempotent: true).entries
    }

    /// Takes a reader from its owner (who gets ADMIN_RELEASED).
    public func forceRelease(readerID: String, expectedGeneration: UInt64? = nil) async throws -> ReaderGatewayV1.ForceReleaseReaderResponse {
        var request = ReaderGatewayV1.ForceReleaseReaderRequest()
        request.readerID = readerID
        request.expectedGeneration = expectedGeneration
        return try await call(ReaderGatewayV1.FleetAdmin.forceReleaseReader, request, idempotent: false)
    }

    // MARK: sessions and tokens

    /// Mints a connection token for a point-of-sale session.
    public func createConnectionToken(locationID: String = "", ttl: Duration? = nil) async throws -> ReaderGatewayV1.CreateConnectionTokenResponse {
        var request = ReaderGatewayV1.CreateConnectionTokenRequest()
        request.locationID = locationID
        if let ttl { request.ttlMs = WireTime.nanoseconds(of: ttl) / 1_000_000 }
        return try await call(ReaderGatewayV1.FleetAdmin.createConnectionToken, request, idempotent: false)
    }

    /// Lists live sessions.
    public func listSessions(locationID: String = "") async throws -> [ReaderGatewayV1.SessionInfo] {
        var request = ReaderGatewayV1.ListSessionsRequest()
        request.locationID = locationID
        return try await call(ReaderGatewayV1.FleetAdmin.listSessions, request, idempotent: true).sessions
    }
}

extension AdminClient: CustomStringConvertible {
    /// The call deadline; never the secret key.
    public var description: String { "AdminClient(secretKey: \(ProtobufDescription.redacted), timeout: \(timeout))" }
}
