import GatewayDomain
import GatewayPostgres

extension OwnershipStore {
    /// The transaction command `session` has marked `reader` in use with (nil: none): a mark
    /// left by an earlier command of the session whose finish never reached the store.
    public func commandMark(reader: ReaderID, session: SessionID) async throws(StoreError) -> ReaderCommand? {
        let rows = try await client.query(
            "SELECT command FROM reader_ownership WHERE reader_id = $1 AND command_session_id = $2",
            [PostgresValue(reader.rawValue), PostgresValue(session.rawValue)]
        )
        guard let name = try rows.first?.decode(String?.self, "command") else { return nil }
        return ReaderCommand(rawValue: name)
    }
}
