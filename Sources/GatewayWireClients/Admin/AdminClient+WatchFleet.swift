import GatewayChannel
import GatewayClientCore
import GatewayWire

extension AdminClient {
    /// `WatchFleet`: the account's readers (of one location when `locationID` is set) as a
    /// snapshot, in pages, then every change as it happens, until the task iterating the
    /// result is cancelled. The sequence throws ``RPCError`` when the call ends (for a
    /// watcher that read too slowly: RESOURCE_EXHAUSTED / `CONSUMER_TOO_SLOW`).
    public func watchFleet(locationID: String = "") async throws -> ResponseStream<ReaderGatewayV1.WatchFleetEvent> {
        var request = ReaderGatewayV1.WatchFleetRequest()
        request.locationID = locationID
        let channel = try await connection.channel()
        return channel.serverStreaming(ReaderGatewayV1.FleetAdmin.watchFleet, request, metadata: [.bearer(secretKey)])
    }
}
