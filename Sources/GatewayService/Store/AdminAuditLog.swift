import GatewayPostgres
import GatewayRepositories

/// The audit log as the admin surface and the console write and read it: PostgreSQL's
/// ``AuditStore`` in the gateway. A forced release writes its row through
/// ``OwnershipAdministration/adminRelease(reader:audit:)`` instead, in its own statement.
protocol AdminAuditLog: Sendable {
    @discardableResult
    func record(_ entry: AuditEntry) async throws(StoreError) -> String
    func events(account: String, filter: AuditFilter, beforeSeq: Int64?, limit: Int) async throws(StoreError) -> [AuditRecord]
}

extension AuditStore: AdminAuditLog {}
