import GatewayWire

extension FleetAdminService {
    /// `WatchFleet`: the snapshot, then changes until the caller cancels (see ``FleetWatchHub``).
    func watchFleet(_ request: ReaderGatewayV1.WatchFleetRequest, call: ServerCall, context: CallContext) async {
        do throws(ServiceError) {
            let access = try await authorize(context, .watchFleet)
            let account = access.account
            let location = try await scopedLocation(request.locationID, access: access)
            var locations: [ReaderGatewayV1.Location] = []
            do {
                let records = try await self.locations.locations(account: account, after: nil, limit: 1000)
                locations = records.filter { location == nil || $0.id == location }.map(Gateway.locationMessage)
            } catch { throw ServiceError.store(error) }
            await fleet.watch(call, account: account, location: location, locations: locations, key: access.key.id)
        } catch {
            call.end(error.status)
        }
    }
}
