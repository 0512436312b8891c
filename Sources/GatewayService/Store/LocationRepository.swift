import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// The locations the fleet admin surface creates, pages through and changes (reading one
/// is ``ReaderRepository/location(_:account:)``): PostgreSQL's ``GatewayDatabase`` in the
/// gateway, an in-memory table in the services' own tests.
protocol LocationRepository: Sendable {
    func createLocation(account: String, displayName: String, address: ReaderGatewayV1.Address) async throws(StoreError) -> LocationRecord
    /// The account's locations ordered by id, those after `after` (a page token) only, at most `limit`.
    func locations(account: String, after: String?, limit: Int) async throws(StoreError) -> [LocationRecord]
    /// Changes what is given (nil: kept); nil when the account has no such location.
    func updateLocation(_ id: String, account: String, displayName: String?, address: ReaderGatewayV1.Address?) async throws(StoreError) -> LocationRecord?
}

extension GatewayDatabase: LocationRepository {}
