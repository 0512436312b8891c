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
        WITH ended AS (
            SELECT o.reader_id, o.session_id, o.lane_label, o.command
            FROM reader_ownership o
            WHERE o.reader_id = $1::text AND o.session_id IS NOT NULL
            FOR UPDATE
        ), cleared AS (
            UPDATE reader_ownership o
            SET session_id = NULL, lane_label = NULL, command = NULL, command_session_id = NULL,
                generation = \(nextGeneration), since = now()
            FROM ended e
            WHERE o.reader_id = e.reader_id
            RETURNING o.reader_id, o.generation
        ), recorded AS (
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
        SELECT CASE
                   WHEN c.reader_id IS NOT NULL THEN 'released'
                   WHEN NOT EXISTS (SELECT 1 FROM readers r WHERE r.id = $1::text) THEN 'unknown_reader'
                   ELSE 'not_connected'
               END AS outcome,
               c.generation, e.session_id AS from_session_id, e.lane_label AS from_lane_label, e.command AS interrupted_command
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN ended e ON true
        LEFT JOIN cleared c ON true
        """
}

extension OwnershipStore {
    /// ``adminRelease(reader:)``, with `audit` written in the same statement: the audit row,
    /// and the key in the history row of the release.
    public func adminRelease(reader: ReaderID, audit: AuditEntry) async throws(StoreError) -> ReleaseResult {
        let rows = try await client.query(OwnershipStatements.adminReleaseAudited, [PostgresValue(reader.rawValue)] + AuditStore.parameters(audit))
        let row = try Self.single(rows, "admin release")
        let outcome = try row.decode(String.self, "outcome")
        guard outcome == "released" else { return .unchanged(try Self.refusal(outcome)) }
        var machine = try FoundRow(released: row).machine(reader: reader, link: .online(LinkEpoch(0)))
        return Self.withoutHistory(machine.adminRelease())
    }
}
