import GatewayDomain
import GatewayOperations
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// The software update catalog on the fleet admin surface, and the fleet view's update and
/// battery columns.
extension FleetAdminService {
    var listSoftwareUpdates: FleetAdminRoute.ListSoftwareUpdates {
        .task { [self] request, context throws(ServiceError) in
            let account = try await authorize(context, .listSoftwareUpdates).account
            var response = ReaderGatewayV1.ListSoftwareUpdatesResponse()
            do { response.updates = try await updates.store.catalog(account: account, deviceType: request.deviceType) } catch {
                throw ServiceError.store(error)
            }
            return response
        }
    }

    var addSoftwareUpdate: FleetAdminRoute.AddSoftwareUpdate {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.addSoftwareUpdate, context) { access, note throws(ServiceError) in
                let account = access.account
                if let update = request.update { note.targetID = "\(ReaderStore.deviceTypeName(update.deviceType)) \(update.version)" }
                let update = try Self.validated(request.update)
                // The audit row is written by the catalog's statement (which knows added from replaced).
                note.detail = "update \(update.version) for \(ReaderStore.deviceTypeName(update.deviceType))"
                let replaced: Bool
                do { replaced = try await updates.store.add(update, account: account, audit: auditEntry(.addSoftwareUpdate, access, context, note: note)) } catch {
                    throw ServiceError.store(error)
                }
                note.written = true
                updates.invalidate(account: account)
                let stored: [ReaderGatewayV1.ReaderSoftwareUpdate]
                do { stored = try await updates.store.catalog(account: account, deviceType: update.deviceType) } catch { throw ServiceError.store(error) }
                var response = ReaderGatewayV1.AddSoftwareUpdateResponse()
                response.update = stored.first { $0.version == update.version } ?? update
                response.replaced = replaced
                await reportAvailableUpdates(account: account, deviceType: update.deviceType)
                return response
            }
        }
    }

    var removeSoftwareUpdate: FleetAdminRoute.RemoveSoftwareUpdate {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.removeSoftwareUpdate, context) { access, note throws(ServiceError) in
                let account = access.account
                note.targetID = "\(ReaderStore.deviceTypeName(request.deviceType)) \(request.version)"
                note.detail = "removed update \(request.version) for \(ReaderStore.deviceTypeName(request.deviceType))"
                // The audit row is written by the delete, when it removes the entry.
                let removed: Bool
                do {
                    removed = try await updates.store.remove(
                        deviceType: request.deviceType, version: request.version, account: account,
                        audit: auditEntry(.removeSoftwareUpdate, access, context, note: note)
                    )
                } catch {
                    throw ServiceError.store(error)
                }
                note.written = removed
                guard removed else {
                    throw ServiceError(
                        .softwareUpdateNotFound,
                        "the catalog has no update \(request.version.debugDescription) for device type \(ReaderStore.deviceTypeName(request.deviceType)); list the catalog to see its entries"
                    )
                }
                updates.invalidate(account: account)
                return ReaderGatewayV1.RemoveSoftwareUpdateResponse()
            }
        }
    }

    /// `update` when it can go in a catalog; INVALID_REQUEST saying what is wrong otherwise.
    static func validated(_ update: ReaderGatewayV1.ReaderSoftwareUpdate?) throws(ServiceError) -> ReaderGatewayV1.ReaderSoftwareUpdate {
        guard var update else { throw ServiceError.invalid("update is missing; give its device_type and version") }
        guard update.deviceType != .unspecified, ReaderGatewayV1.DeviceType.knownValues.contains(update.deviceType) else {
            throw ServiceError.invalid("device_type is missing or unknown; give the device type the update is for")
        }
        guard SoftwareVersion(update.version) != nil else {
            throw ServiceError.invalid("version \(update.version.debugDescription) is not a version: use dotted numbers such as 2.4.0")
        }
        let unknown = update.components.filter { !SoftwareUpdateStore.knownComponents.contains($0) }
        guard unknown.isEmpty else {
            throw ServiceError.invalid("unknown component(s) \(unknown.joined(separator: ", ")); use incremental, firmware, config or keys")
        }
        guard update.requiredAtUnixMs >= 0 else { throw ServiceError.invalid("required_at_unix_ms is negative; give 0 for never required") }
        update.required = false
        update.addedUnixMs = 0
        return update
    }

    /// The catalog changed: every connected reader of `deviceType` held here, not in a payment,
    /// that now has an update available is reported to its owner (Stripe's didReportAvailableUpdate).
    func reportAvailableUpdates(account: String, deviceType: ReaderGatewayV1.DeviceType) async {
        let readers = registry.idleOwnedReaders(account: account, deviceType: deviceType)
        for (reader, status, location) in readers {
            let entry: ReaderGatewayV1.ReaderSoftwareUpdate?
            do {
                entry = try await updates.decide(
                    account: account, deviceType: deviceType, location: location, version: status.softwareVersion, batteryLevel: status.batteryLevel
                ).1
            } catch {
                logger.warning("could not tell a connected reader's owner of a catalog change; it hears at its next connect", ["reader": reader, "error": error])
                continue
            }
            guard let entry else { continue }
            var available = ReaderGatewayV1.UpdateAvailable()
            available.readerID = reader.rawValue
            available.update = entry
            let nowUnixMs = configuration.clock.nowUnixMs
            registry.softwareUpdateEvent(reader, .updateAvailable(available), nowUnixMs: nowUnixMs)
        }
    }

    /// The fleet view of `readers`: each with its available update, and an offline reader's
    /// last recorded battery level.
    func fleetView(_ readers: [ReaderGatewayV1.Reader], account: String) async -> [ReaderGatewayV1.Reader] {
        let offline = readers.filter { $0.batteryLevel == nil }.map(\.id)
        var stored: [String: Float] = [:]
        do { stored = try await updates.store.batteryLevels(readers: offline) } catch {
            metrics.storeErrors.labels(StoreErrorKind(error)).increment()
            logger.warning("could not read readers' last battery levels; the fleet view shows them without", ["error": error])
        }
        var shown: [ReaderGatewayV1.Reader] = []
        shown.reserveCapacity(readers.count)
        for var reader in readers {
            if reader.batteryLevel == nil { reader.batteryLevel = stored[reader.id] }
            shown.append(await updates.withAvailableUpdate(reader, account: account))
        }
        return shown
    }
}
