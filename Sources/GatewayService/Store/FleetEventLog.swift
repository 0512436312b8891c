import GatewayPostgres
import GatewayRepositories

/// The account's event log as the admin surface reads it and the SDK surface writes the
/// events no other row carries: PostgreSQL's ``EventStore`` in the gateway.
protocol FleetEventLog: Sendable {
    func events(account: String, filter: EventFilter, beforeSeq: Int64?, limit: Int) async throws(StoreError) -> [EventRecord]
    func event(_ id: String, account: String) async throws(StoreError) -> EventRecord?
    /// The reader's new version and `reader.software_update.installed`, in one transaction.
    @discardableResult
    func softwareUpdateInstalled(reader: String, account: String, version: String, details: [String: String]) async throws -> String?
    @discardableResult
    func appendReaderEvent(_ type: String, reader: String, account: String, details: [String: String]) async throws(StoreError) -> String?
}

extension EventStore: FleetEventLog {}
