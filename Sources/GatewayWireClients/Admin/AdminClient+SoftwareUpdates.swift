import GatewayClientCore
import GatewayWire

extension AdminClient {
    /// The account's software update catalog (one device type, or `.unspecified` for all).
    public func listSoftwareUpdates(deviceType: ReaderGatewayV1.DeviceType = .unspecified) async throws -> [ReaderGatewayV1.ReaderSoftwareUpdate] {
        var request = ReaderGatewayV1.ListSoftwareUpdatesRequest()
        request.deviceType = deviceType
        return try await call(ReaderGatewayV1.FleetAdmin.listSoftwareUpdates, request, idempotent: true).updates
    }

    /// Adds an update to the catalog, or replaces the one of the same device type and version.
    public func addSoftwareUpdate(_ update: ReaderGatewayV1.ReaderSoftwareUpdate) async throws -> ReaderGatewayV1.AddSoftwareUpdateResponse {
        var request = ReaderGatewayV1.AddSoftwareUpdateRequest()
        request.update = update
        return try await call(ReaderGatewayV1.FleetAdmin.addSoftwareUpdate, request, idempotent: true)
    }

    /// Removes an update from the catalog (`SOFTWARE_UPDATE_NOT_FOUND` when it is not there).
    public func removeSoftwareUpdate(deviceType: ReaderGatewayV1.DeviceType, version: String) async throws {
        var request = ReaderGatewayV1.RemoveSoftwareUpdateRequest()
        request.deviceType = deviceType
        request.version = version
        _ = try await call(ReaderGatewayV1.FleetAdmin.removeSoftwareUpdate, request, idempotent: false)
    }
}

extension AdminClient {
    /// Sets a location's software install window (nil: removes it); the location as it is now.
    public func setInstallWindow(_ locationID: String, _ window: ReaderGatewayV1.InstallWindow?) async throws -> ReaderGatewayV1.Location {
        var request = ReaderGatewayV1.UpdateLocationRequest()
        request.locationID = locationID
        request.installWindow = window
        request.clearInstallWindow = window == nil
        return try await call(ReaderGatewayV1.FleetAdmin.updateLocation, request, idempotent: true).location ?? ReaderGatewayV1.Location()
    }
}
