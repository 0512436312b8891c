import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// The locations of an account: read by the SDK surface, created, paged through and changed
/// by the fleet admin surface. PostgreSQL's ``LocationStore`` in the gateway, an in-memory
/// table in the services' own tests.
protocol LocationRepository: Sendable {
    /// The location `id` of `account` (nil: unknown, or another account's).
    func location(_ id: String, account: String) async throws(StoreError) -> LocationRecord?
    func createLocation(account: String, displayName: String, address: ReaderGatewayV1.Address) async throws(StoreError) -> LocationRecord
    /// The same, with `audit` (its location the new one's id) written in the insert's statement.
    func createLocation(account: String, displayName: String, address: ReaderGatewayV1.Address, audit: AuditEntry) async throws(StoreError) -> LocationRecord
    /// The account's locations ordered by id, those after `after` (a page token) only, at most `limit`.
    func locations(account: String, after: String?, limit: Int) async throws(StoreError) -> [LocationRecord]
    /// Changes what is given (nil: kept), `audit` written in the change's statement; nil when the
    /// account has no such location.
    func updateLocation(
        _ id: String, account: String, displayName: String?, address: ReaderGatewayV1.Address?, audit: AuditEntry?
    ) async throws(StoreError) -> LocationRecord?
}

extension LocationStore: LocationRepository {}
