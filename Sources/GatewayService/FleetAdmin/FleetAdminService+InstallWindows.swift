import GatewayDomain
import GatewayRepositories
import GatewayWire

/// Locations' software install windows on the admin surface: set or cleared by
/// UpdateLocation, shown by ListLocations and UpdateLocation (PROTOCOL.md section 16).
extension FleetAdminService {
    /// The window UpdateLocation asks for: `.some(nil)` to clear it, nil to leave it. Checked
    /// before anything is written.
    static func requestedInstallWindow(_ request: ReaderGatewayV1.UpdateLocationRequest) throws(ServiceError) -> InstallWindow?? {
        switch (request.installWindow, request.clearInstallWindow) {
        case (nil, false):
            return nil
        case (nil, true):
            return .some(nil)
        case (.some, true):
            throw ServiceError.invalid("install_window and clear_install_window were both given; set the window or clear it")
        case (let window?, false):
            do {
                return .some(try InstallWindow(
                    startMinute: Int(window.startMinute), endMinute: Int(window.endMinute), utcOffsetMinutes: Int(window.utcOffsetMinutes)
                ))
            } catch {
                throw ServiceError.invalid(error.message)
            }
        }
    }

    /// What an UpdateLocation changes, as its audit row says: `updated location "Front door"`
    /// (its id when the name is kept), and its address, and its install window.
    static func locationChange(_ request: ReaderGatewayV1.UpdateLocationRequest, window: InstallWindow??) -> String {
        var detail = "updated location " + (request.displayName.map { "\"\($0)\"" } ?? request.locationID)
        if request.address != nil { detail += " and its address" }
        if window != nil { detail += " and its install window" }
        return detail
    }

    /// Sets or clears the location's window (`requested` from ``requestedInstallWindow(_:)``);
    /// the readers there are decided with it at once on this replica.
    func applyInstallWindow(_ requested: InstallWindow??, location: String, account: String) async throws(ServiceError) {
        guard let requested else { return }
        let found: Bool
        do { found = try await updates.store.setInstallWindow(requested, location: location, account: account) } catch {
            throw ServiceError.store(error)
        }
        guard found else { throw ServiceError.locationNotFound }
        updates.invalidateWindow(location: location)
    }

    /// `locations` with their install windows.
    func withInstallWindows(_ locations: [ReaderGatewayV1.Location], account: String) async throws(ServiceError) -> [ReaderGatewayV1.Location] {
        let windows: [String: InstallWindow]
        do { windows = try await updates.store.installWindows(account: account, locations: locations.map(\.id)) } catch {
            throw ServiceError.store(error)
        }
        return locations.map { location in
            var location = location
            location.installWindow = windows[location.id].map(Self.message)
            return location
        }
    }

    static func message(_ window: InstallWindow) -> ReaderGatewayV1.InstallWindow {
        var message = ReaderGatewayV1.InstallWindow()
        message.startMinute = UInt32(window.startMinute)
        message.endMinute = UInt32(window.endMinute)
        message.utcOffsetMinutes = Int32(window.utcOffsetMinutes)
        return message
    }
}
