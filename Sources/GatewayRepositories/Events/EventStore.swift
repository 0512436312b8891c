import Foundation
import GatewayPostgres

/// The event log (`events`, migration 21): reads for `FleetAdmin.ListEvents`, and the writes of
/// the events no other row carries (a command's outcome, an update's install or failure).
///
/// Reader, ownership and Tap to Pay events are written by the triggers of migration 21, in the
/// transaction of the change they describe; this store never writes those.
public struct EventStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    static let columns = """
        seq, id, account_id, type, reader_id, location_id, floor(extract(epoch FROM created) * 1000)::bigint AS created_ms, object::text AS object
        """

    /// Appends an event about `reader` of `account`: `details` (flat string fields, `object`
    /// first among them) with the reader as it stands under `reader`. Nil when the account has
    /// no such reader (nothing is written).
    @discardableResult
    public func appendReaderEvent(
        _ type: String, reader: String, account: String, details: [String: String]
    ) async throws(StoreError) -> String? {
        let rows = try await client.query(Self.appendReaderEvent, try Self.readerEventParameters(type, reader: reader, account: account, details: details))
        return try rows.first?.decode(String.self, "id")
    }

    /// The same inside `transaction`, so the event commits or rolls back with the change beside it.
    @discardableResult
    public func appendReaderEvent(
        _ type: String, reader: String, account: String, details: [String: String], in transaction: PostgresTransaction
    ) async throws(StoreError) -> String? {
        let rows = try await transaction.query(
            Self.appendReaderEvent, try Self.readerEventParameters(type, reader: reader, account: account, details: details)
        )
        return try rows.first?.decode(String.self, "id")
    }

    /// `reader` of `account` installed an update and now runs `version`: the reader's row and
    /// `reader.software_update.installed` (`details` beside the reader) in one transaction.
    /// Nil when the account has no such reader (nothing changes).
    @discardableResult
    public func softwareUpdateInstalled(
        reader: String, account: String, version: String, details: [String: String]
    ) async throws -> String? {
        try await client.withTransaction { transaction in
            try await transaction.execute(
                "UPDATE readers SET software_version = $3, last_seen_at = now() WHERE id = $1 AND account_id = $2",
                [PostgresValue(reader), PostgresValue(account), PostgresValue(version)]
            )
            return try await appendReaderEvent(EventType.softwareUpdateInstalled, reader: reader, account: account, details: details, in: transaction)
        }
    }

    /// The account's events matching `filter`, newest first, strictly below `beforeSeq` when
    /// given (the previous page's last), at most `limit`.
    public func events(account: String, filter: EventFilter, beforeSeq: Int64?, limit: Int) async throws(StoreError) -> [EventRecord] {
        let rows = try await client.query(
            """
            SELECT \(Self.columns) FROM events
            WHERE account_id = $1
              AND ($2::bigint IS NULL OR seq < $2::bigint)
              AND ($3::text[] IS NULL OR type = ANY ($3::text[]))
              AND ($4::text IS NULL OR reader_id = $4::text)
              AND ($5::text IS NULL OR location_id = $5::text)
              AND ($6::bigint IS NULL OR created >= timestamptz 'epoch' + $6::bigint * interval '1 millisecond')
              AND ($7::bigint IS NULL OR created < timestamptz 'epoch' + $7::bigint * interval '1 millisecond')
              AND ($9::text[] IS NULL OR location_id = ANY ($9::text[]))
            ORDER BY seq DESC
            LIMIT $8
            """,
            [
                PostgresValue(account), beforeSeq.map { PostgresValue($0) },
                filter.types.isEmpty ? nil : PostgresValue(text: Self.arrayLiteral(filter.types)),
                filter.readerID.map { PostgresValue($0) }, filter.locationID.map { PostgresValue($0) },
                filter.createdFromUnixMs.map { PostgresValue($0) }, filter.createdBeforeUnixMs.map { PostgresValue($0) },
                PostgresValue(limit),
                filter.limitedTo.map { PostgresValue(text: Self.arrayLiteral($0)) },
            ]
        )
        var records: [EventRecord] = []
        for row in rows { records.append(try Self.record(row)) }
        return records
    }

    /// One event of the account (nil for an unknown id, or another account's).
    public func event(_ id: String, account: String) async throws(StoreError) -> EventRecord? {
        let rows = try await client.query(
            "SELECT \(Self.columns) FROM events WHERE id = $1 AND account_id = $2", [PostgresValue(id), PostgresValue(account)]
        )
        return try rows.first.map { row throws(StoreError) in try Self.record(row) }
    }

    // MARK: statements

    /// `$1` reader, `$2` account, `$3` type, `$4` details (a JSON object).
    static let appendReaderEvent = """
        SELECT gateway_event_append(r.account_id, $3, r.id, r.location_id, $4::jsonb || jsonb_build_object('reader', gateway_event_reader(r.id))) AS id
        FROM readers r WHERE r.id = $1 AND r.account_id = $2
        """

    static func readerEventParameters(
        _ type: String, reader: String, account: String, details: [String: String]
    ) throws(StoreError) -> [PostgresValue?] {
        [PostgresValue(reader), PostgresValue(account), PostgresValue(type), PostgresValue(EventDetails.json(details))]
    }

    static func record(_ row: PostgresRow) throws(StoreError) -> EventRecord {
        EventRecord(
            seq: try row.decode(Int64.self, "seq"),
            id: try row.decode(String.self, "id"),
            accountID: try row.decode(String.self, "account_id"),
            type: try row.decode(String.self, "type"),
            readerID: try row.decode(String?.self, "reader_id"),
            locationID: try row.decode(String?.self, "location_id"),
            createdUnixMs: try row.decode(Int64.self, "created_ms"),
            objectJSON: try row.decode(String.self, "object")
        )
    }

    /// A PostgreSQL array literal of `elements`, each quoted.
    static func arrayLiteral(_ elements: [String]) -> String {
        "{" + elements.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }.joined(separator: ",") + "}"
    }
}
