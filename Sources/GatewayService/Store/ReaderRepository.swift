import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// The readers of an account as the services read them: PostgreSQL's ``ReaderStore`` in
/// the gateway, in-memory tables in the services' own tests.
protocol ReaderRepository: Sendable {
    func reader(_ id: String, account: String) async throws(StoreError) -> ReaderRecord?
    /// The reader registered with `serial`, in any account.
    func reader(serial: String) async throws(StoreError) -> ReaderRecord?
    /// The readers registered with `serials` (any account), by serial: attaches that arrive
    /// together look theirs up in one statement (``ReaderSerialLookupBatcher``).
    func readers(serials: [String]) async throws(StoreError) -> [String: ReaderRecord]
    /// The account's readers (of `location` when given), ordered by id.
    func readers(account: String, location: String?) async throws(StoreError) -> [ReaderRecord]
    /// What a reader's link reported of itself.
    func readerReported(_ id: String, softwareVersion: String, deviceType: ReaderGatewayV1.DeviceType) async throws(StoreError)
}

extension ReaderStore: ReaderRepository {}
