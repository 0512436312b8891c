import Foundation
import GatewayPostgres

/// A session's latest answered discovery as its row keeps it (migration 12), so that a
/// replica taking the session over honours the readers it discovered elsewhere.
public struct SessionDiscoveryRecord: Sendable, Hashable {
    /// The discovery's number (the `disc_<n>` the session's lane was answered with).
    public var answered: UInt64
    /// The ids of the readers it answered with.
    public var readers: [String]

    public init(answered: UInt64, readers: [String]) {
        self.answered = answered
        self.readers = readers
    }
}

extension SessionStore {
    /// Keeps discovery `answered` and its readers with the session's row, unless the row
    /// already holds a later one, or the row was adopted past `epoch` (a replica holding a
    /// stale copy of the session writes nothing). One statement per answered discovery.
    /// Returns false when nothing was written because the copy is stale or the session closed.
    public func recordDiscovery(_ discovery: SessionDiscoveryRecord, session: String, epoch: Int64) async throws(StoreError) -> Bool {
        let rows = try await client.query(
            """
            UPDATE sdk_sessions SET
                discovery_answered = greatest(discovery_answered, $2),
                discovered_readers = CASE WHEN discovery_answered IS NULL OR discovery_answered <= $2
                    THEN ARRAY(SELECT jsonb_array_elements_text($3::jsonb)) ELSE discovered_readers END
            WHERE id = $1 AND closed_at IS NULL AND epoch = $4
            RETURNING id
            """,
            [
                PostgresValue(session), PostgresValue(Int64(clamping: discovery.answered)), PostgresValue(Self.jsonArray(discovery.readers)),
                PostgresValue(epoch),
            ]
        )
        return !rows.isEmpty
    }

    /// The discovery a row returned with `discovery_answered` and
    /// `to_json(discovered_readers)::text AS discovered_readers` holds; nil when the session
    /// never had a discovery answered.
    public static func sessionDiscovery(in row: PostgresRow) throws(StoreError) -> SessionDiscoveryRecord? {
        guard let answered = try row.decode(Int64?.self, "discovery_answered"), answered > 0 else { return nil }
        let text = try row.decode(String?.self, "discovered_readers") ?? "[]"
        guard let readers = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else {
            throw StoreError(.decodingFailed, "sdk_sessions.discovered_readers is not a JSON array of reader ids: \(text.prefix(80)); the row was written by something other than reader-gateway")
        }
        return SessionDiscoveryRecord(answered: UInt64(answered), readers: readers)
    }

    static func jsonArray(_ strings: [String]) -> String {
        guard let data = try? JSONEncoder().encode(strings) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }
}
