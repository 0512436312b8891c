import Foundation
import GatewayPostgres

/// The audit log (`audit_events`, migration 23): writes of the changes that have no statement
/// of their own to carry them, and the reads of `FleetAdmin.ListAuditEvents`.
///
/// Every change writes its row in the change's own statement or transaction (the store
/// methods taking `audit:`, with ``insert(from:parametersFrom:target:detail:)``): a forced
/// release, a reader registered or deleted, a location created or changed, a connection token,
/// an update catalog entry, a key's creation, roll and revocation, a console sign-in or
/// sign-out. This store writes the rest: refusals, which change nothing.
public struct AuditStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Appends `entry`; returns its id.
    @discardableResult
    public func record(_ entry: AuditEntry) async throws(StoreError) -> String {
        let rows = try await client.query(Self.insert + " RETURNING id", Self.parameters(entry))
        guard let row = rows.first else { throw StoreError(.decodingFailed, "appending an audit row answered no id") }
        return try row.decode(String.self, "id")
    }

    /// The account's rows matching `filter`, newest first, strictly below `beforeSeq` when
    /// given (the previous page's last), at most `limit`.
    public func events(account: String, filter: AuditFilter, beforeSeq: Int64?, limit: Int) async throws(StoreError) -> [AuditRecord] {
        let rows = try await client.query(
            """
            SELECT seq, id, account_id, action, key_id, key_name, source_address, user_agent, outcome, reader_id, location_id,
                   target_id, detail, floor(extract(epoch FROM created) * 1000)::bigint AS created_ms
            FROM audit_events
            WHERE account_id = $1
              AND ($2::bigint IS NULL OR seq < $2::bigint)
              AND ($3::text[] IS NULL OR action = ANY ($3::text[]))
              AND ($4::text IS NULL OR key_id = $4::text)
              AND ($5::text IS NULL OR reader_id = $5::text)
              AND ($6::text IS NULL OR location_id = $6::text)
              AND ($7::boolean IS NULL OR (outcome = 'ok') = $7::boolean)
              AND ($8::bigint IS NULL OR created >= timestamptz 'epoch' + $8::bigint * interval '1 millisecond')
              AND ($9::bigint IS NULL OR created < timestamptz 'epoch' + $9::bigint * interval '1 millisecond')
              AND ($11::text[] IS NULL OR location_id = ANY ($11::text[]))
            ORDER BY seq DESC
            LIMIT $10
            """,
            [
                PostgresValue(account), beforeSeq.map { PostgresValue($0) },
                filter.actions.isEmpty ? nil : PostgresValue(text: EventStore.arrayLiteral(filter.actions)),
                filter.keyID.map { PostgresValue($0) }, filter.readerID.map { PostgresValue($0) }, filter.locationID.map { PostgresValue($0) },
                filter.succeeded.map { PostgresValue($0) },
                filter.createdFromUnixMs.map { PostgresValue($0) }, filter.createdBeforeUnixMs.map { PostgresValue($0) },
                PostgresValue(limit),
                filter.limitedTo.map { PostgresValue(text: EventStore.arrayLiteral($0)) },
            ]
        )
        var records: [AuditRecord] = []
        for row in rows {
            records.append(
                AuditRecord(
                    seq: try row.decode(Int64.self, "seq"),
                    id: try row.decode(String.self, "id"),
                    createdUnixMs: try row.decode(Int64.self, "created_ms"),
                    entry: AuditEntry(
                        accountID: try row.decode(String.self, "account_id"),
                        action: try row.decode(String.self, "action"),
                        actor: AuditActor(
                            keyID: try row.decode(String.self, "key_id"), keyName: try row.decode(String.self, "key_name"),
                            sourceAddress: try row.decode(String.self, "source_address"), userAgent: try row.decode(String?.self, "user_agent")
                        ),
                        outcome: try row.decode(String.self, "outcome"),
                        readerID: try row.decode(String?.self, "reader_id"),
                        locationID: try row.decode(String?.self, "location_id"),
                        targetID: try row.decode(String?.self, "target_id"),
                        detail: try row.decode(String.self, "detail")
                    )
                )
            )
        }
        return records
    }

    // MARK: statements

    /// The insert of one row, parameters `$1`...`$11` as ``parameters(_:)`` gives them.
    public static let insert = """
        INSERT INTO audit_events (account_id, action, key_id, key_name, source_address, user_agent, outcome, reader_id, location_id, target_id, detail)
        VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text)
        """

    /// An INSERT of one audit row per row of `source` (a CTE of the change's statement), so
    /// the row is written only when the change is, in its statement. The parameters are
    /// ``parameters(_:)``'s, numbered from `first`; `target`, an SQL expression over
    /// `source`'s columns, stands for the target when the change makes it (a new key's id);
    /// `detail`, one over `source`'s columns and the entry's detail (`$detail`), for a detail
    /// only the statement knows (whether an update was added or replaced).
    public static func insert(from source: String, parametersFrom first: Int, target: String? = nil, detail: String? = nil) -> String {
        var values = (0..<11).map { "$\(first + $0)::text" }
        if let target { values[9] = "coalesce(\(target), \(values[9]))" }
        if let detail { values[10] = detail.replacingOccurrences(of: "$detail", with: values[10]) }
        return """
            INSERT INTO audit_events (account_id, action, key_id, key_name, source_address, user_agent, outcome, reader_id, location_id, target_id, detail)
            SELECT \(values.joined(separator: ", ")) FROM \(source)
            """
    }

    public static func parameters(_ entry: AuditEntry) -> [PostgresValue?] {
        [
            PostgresValue(entry.accountID), PostgresValue(entry.action), PostgresValue(entry.actor.keyID), PostgresValue(entry.actor.keyName),
            PostgresValue(entry.actor.sourceAddress), entry.actor.userAgent.map { PostgresValue($0) }, PostgresValue(entry.outcome),
            entry.readerID.map { PostgresValue($0) }, entry.locationID.map { PostgresValue($0) }, entry.targetID.map { PostgresValue($0) },
            PostgresValue(entry.detail),
        ]
    }
}
