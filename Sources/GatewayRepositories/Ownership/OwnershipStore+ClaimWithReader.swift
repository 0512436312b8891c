import GatewayDomain
import GatewayPostgres

extension OwnershipStore {
    /// Decides a connect request and reads the reader's row for the answer, in one statement
    /// and one round trip (``OwnershipStatements/claimWithReader``): a connect's only
    /// statement. The record is nil when the reader is not `account`'s.
    public func claim(
        _ reader: ReaderID, _ request: ConnectRequest, readingRecordOf account: String
    ) async throws(StoreError) -> (result: ConnectResult, record: ReaderRecord?) {
        var parameters = Self.claimParameters(reader, request).map { value in value.map { PostgresValue(text: $0) } }
        parameters.append(PostgresValue(account))
        let row = try Self.single(try await client.query(OwnershipStatements.claimWithReader, parameters), "claim")
        let result = try decodeClaim(row, reader: reader, request: request)
        guard try row.decode(String?.self, "id") != nil else { return (result, nil) }
        return (result, try ReaderStore.reader(row))
    }
}
