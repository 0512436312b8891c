import GatewayPostgres
import GatewayDomain

extension OwnershipStatements {
    /// A fleet admin releases a reader from whoever owns it, and the audit log says which key
    /// did, in the same statement: the history row names the key (`by_key_id`, `by_key_name`),
    /// and one `audit_events` row is written whether or not the reader had an owner.
    /// Parameters: `$1` reader, then the audit row's columns as ``AuditStore/parameters(_:)``
    /// gives them (`$2` account ... `$12` detail; the detail given is used when the reader
    /// had no owner, else the statement says whom it released). Returns what
    /// ``adminRelease`` returns.
    static let adminReleaseAudited = """
        WITH \(adminReleaseSteps), recorded AS (
            INSERT INTO ownership_history (reader_id, from_session_id, from_lane_label, from_pos_device_id, generation, reason, by_key_id, by_key_name)
            SELECT e.reader_id, e.session_id, e.lane_label, \(posDevice(of: "e.session_id")), c.generation, 'admin_released', $4::text, $5::text
            FROM ended e JOIN cleared c USING (reader_id)
        ), audited AS (
            INSERT INTO audit_events (account_id, action, key_id, key_name, source_address, user_agent, outcome, reader_id, location_id, target_id, detail)
            SELECT $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text,
                   coalesce(
                       (SELECT 'released session ' || e.session_id || ' (lane ' || coalesce(e.lane_label, '') || ')'
                               || coalesce(', interrupting ' || e.command, '') || ' at generation ' || c.generation
                        FROM ended e JOIN cleared c USING (reader_id)),
                       $12::text
                   )
        )
        \(adminReleaseOutcome)
        """
}

extension OwnershipStore {
    /// ``adminRelease(reader:)``, with `audit` written in the same statement: the audit row,
    /// and the key in the history row of the release.
    public func adminRelease(reader: ReaderID, audit: AuditEntry) async throws(StoreError) -> ReleaseResult {
        try Self.adminReleased(
            reader, try await client.query(OwnershipStatements.adminReleaseAudited, [PostgresValue(reader.rawValue)] + AuditStore.parameters(audit))
        )
    }
}
