import GatewayPostgres
import GatewayRepositories

extension FleetAdminService {
    /// One page of a log listed newest first by `seq` (the event log, the audit log): the
    /// request's `page_token` checked against `cursor`, its `limit` (0: 100, at most 1,000),
    /// one row more than the page asked of `fetch` (the rows below a `seq`, at most a count),
    /// and the token of the next page when that row came back.
    static func logPage<Record>(
        _ cursor: PageCursor, token: String, limit requested: UInt32, seq: (Record) -> Int64,
        fetch: (_ beforeSeq: Int64?, _ limit: Int) async throws(StoreError) -> [Record]
    ) async throws(ServiceError) -> (records: ArraySlice<Record>, nextPageToken: String) {
        var beforeSeq: Int64?
        if !token.isEmpty {
            guard let seq = cursor.seq(token) else {
                throw ServiceError.invalid("page_token is not one this gateway issued; pass a response's next_page_token unchanged, or none for the first page")
            }
            beforeSeq = seq
        }
        let limit = requested == 0 ? 100 : Int(min(requested, 1000))
        let records: [Record]
        do { records = try await fetch(beforeSeq, limit + 1) } catch { throw ServiceError.store(error) }
        return (records.prefix(limit), records.count > limit ? cursor.token(after: seq(records[limit - 1])) : "")
    }
}
