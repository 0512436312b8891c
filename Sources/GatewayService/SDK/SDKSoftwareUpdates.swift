import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// Software updates on the SDK surface, a step shared by connect and commands: the required
/// update during ConnectReader (a step after the claim), and InstallAvailableUpdate. The rules are
/// `SoftwareUpdatePolicy` (GatewayDomain); the catalog is the account's
/// (``SoftwareUpdateCatalog``); the install is a command relayed to the reader like any other,
/// whose progress the reader reports on its link and the owner hears as events.
struct SDKSoftwareUpdates: StoreFollowUps {
    let clock: any ServiceClock
    /// The connected reader's row, and the version it installed.
    let readerRecords: any ReaderRepository
    let updates: SoftwareUpdateCatalog
    let registry: LiveRegistry
    let metrics: GatewayMetrics
    let lookup: SDKSessionLookup
    /// Lets the reader go when the update rules refuse a connect.
    let releases: SDKReaderRelease
    /// The install is a command relayed like any other.
    let router: SDKCommandRouter
    /// `reader.software_update.installed` / `.failed`.
    let recorder: SDKEventRecorder
    let logger: Logger

    /// The reader's version and battery as the update rules see them: its link's status when
    /// the link is here, else what PostgreSQL last recorded.
    func softwareStatus(of reader: ReaderGatewayV1.Reader) async -> (version: String, battery: Float?) {
        if let status = registry.linkStatus(of: ReaderID(reader.id)) {
            return (status.softwareVersion.isEmpty ? reader.softwareVersion : status.softwareVersion, status.batteryLevel)
        }
        guard reader.batteryLevel == nil else { return (reader.softwareVersion, reader.batteryLevel) }
        do {
            return (reader.softwareVersion, try await updates.store.batteryLevels(readers: [reader.id])[reader.id])
        } catch {
            // The reader checks its battery itself before installing; the gateway's check is the early answer.
            metrics.storeErrors.labels(StoreErrorKind(error)).increment()
            logger.warning("could not read a reader's last battery level; its update is decided as for a reader on mains power", [
                "reader": reader.id, "error": error,
            ])
            return (reader.softwareVersion, nil)
        }
    }

    /// ConnectReader's step after the claim was granted and recorded: the reader's required
    /// update installs now (the connect answers when it has finished), or its optional update
    /// is reported. A refusal releases the reader and fails the connect.
    func connectSoftwareUpdateStep(
        _ reader: ReaderID, token: String, account: String, context: CallContext, response: inout ReaderGatewayV1.ConnectReaderResponse
    ) async throws(ServiceError) {
        guard var described = response.reader else { return }
        let decided: (SoftwareUpdatePolicy.Decision, ReaderGatewayV1.ReaderSoftwareUpdate?)
        do {
            // A device type without a catalog (most smart readers) costs nothing more: the
            // catalog is cached, and the reader's battery is not looked up.
            guard try await !updates.entries(account: account, deviceType: described.deviceType).isEmpty else { return }
            let (version, battery) = await softwareStatus(of: described)
            decided = try await updates.decide(
                account: account, deviceType: described.deviceType, location: described.locationID, version: version, batteryLevel: battery
            )
        } catch {
            // The catalog could not be read: the reader is still released, nothing half-done.
            try await releaseAfterFailedConnect(reader, token: token, context: context)
            throw ServiceError.store(error)
        }
        let location = described.locationID
        switch decided {
        case (.upToDate, _):
            described.availableUpdate = nil
            await recordRunsLatest(reader, location: location, deviceType: described.deviceType, account: account)
        case (.optional, let entry?):
            described.availableUpdate = entry
            await recordRunsLatest(reader, location: location, deviceType: described.deviceType, account: account)
            reportUpdateAvailable(reader, entry)
        case (.requiredBatteryLow(_, let level), let entry?):
            try await releaseAfterFailedConnect(reader, token: token, context: context)
            throw ServiceError(
                .readerSoftwareUpdateFailedBatteryLow,
                "the reader must install required update \(entry.version) before it can be connected, and its battery is at \(Int((level * 100).rounded())) %; charge it above 50 %, then connect again"
            )
        case (.required, let entry?):
            try await installRequired(entry, reader, token: token, account: account, context: context, described: &described, response: &response)
        default:
            break
        }
        response.reader = described
    }

    /// A required update installs during the connect: the reader's version afterwards, or the
    /// connect fails (the reader released) unless the 30-day rule lets a failed install through.
    func installRequired(
        _ entry: ReaderGatewayV1.ReaderSoftwareUpdate, _ reader: ReaderID, token: String, account: String, context: CallContext,
        described: inout ReaderGatewayV1.Reader, response: inout ReaderGatewayV1.ConnectReaderResponse
    ) async throws(ServiceError) {
        let location = described.locationID
        let owned = try await ownedAfterClaim(token, context: context)
        let outcome = await install(entry, on: owned, required: true, account: account)
        switch outcome {
        case .success(let installed):
            described.softwareVersion = installed
            described.availableUpdate = nil
            await softwareVersionInstalled(reader, version: installed, update: entry, account: account)
            await recordRunsLatest(reader, location: location, deviceType: described.deviceType, account: account)
        case .failure(let failure) where failure.reason == .commandCanceled:
            try await releaseAfterFailedConnect(reader, token: token, context: context)
            throw ServiceError(
                .commandCanceled,
                "the required software update \(entry.version) was cancelled, so the reader was not connected; connect again to install it"
            )
        case .failure(let failure) where failure.reason == .readerSoftwareUpdateFailedBatteryLow:
            try await releaseAfterFailedConnect(reader, token: token, context: context)
            throw failure
        case .failure(let failure) where failure.reason != .readerSoftwareUpdateFailed && failure.reason != .readerSoftwareUpdateFailedInterrupted:
            // Not the install's failure (the reader was taken over meanwhile, the store
            // failed): the connect fails with it, as any connect would.
            try await releaseAfterFailedConnect(reader, token: token, context: context)
            throw failure
        case .failure(let failure) where try await lookup.session(token, context).reader != reader:
            // The reader went away with the install (its link ended and the session lost it):
            // there is nothing left to connect.
            throw failure
        case .failure(let failure):
            let ranLatestAt: Int64?
            do { ranLatestAt = try await updates.store.ranLatestAt(reader: reader.rawValue, location: location) } catch {
                try await releaseAfterFailedConnect(reader, token: token, context: context)
                throw ServiceError.store(error)
            }
            guard SoftwareUpdatePolicy.mayConnectAfterFailedUpdate(lastRanLatestAtMs: ranLatestAt, nowMs: updates.nowUnixMs) else {
                try await releaseAfterFailedConnect(reader, token: token, context: context)
                throw ServiceError(
                    .readerSoftwareUpdateFailed,
                    "the required software update \(entry.version) failed (\(failure.message)) and the reader has not run this location's latest version within the last 30 days, so it cannot be connected; connect again to retry the update"
                )
            }
            logger.notice("a required update failed; the reader ran its location's latest version within 30 days and connects", [
                "reader": reader, "version": entry.version, "error": failure,
            ])
            described.availableUpdate = entry
            response.requiredUpdateFailure = ReaderGatewayV1.Status(
                failure.reason == .readerSoftwareUpdateFailedInterrupted ? .readerSoftwareUpdateFailedInterrupted : .readerSoftwareUpdateFailed,
                "required update \(entry.version) failed (\(failure.message)); the reader connected because it ran this location's latest version within the last 30 days. The next connect retries the update"
            )
        }
    }

    /// InstallAvailableUpdate: installs the connected reader's available update, when no
    /// payment runs on it; answers when the install has finished.
    func installAvailableUpdate(
        _ request: ReaderGatewayV1.InstallAvailableUpdateRequest, _ context: CallContext
    ) async throws(ServiceError) -> ReaderGatewayV1.InstallAvailableUpdateResponse {
        let session = try await lookup.session(request.sessionToken, context)
        if let refusal = await lookup.takePendingRefusal(session) { throw ServiceError.refusal(refusal) }
        guard let reader = session.reader else { throw ServiceError.notConnected }
        let status = registry.linkStatus(of: reader)
        if let activity = status?.activity, activity == .collecting || activity == .confirming {
            throw ServiceError(.readerBusy, "a payment is running on the reader; install the update once it has finished")
        }
        let record: ReaderRecord?
        do { record = try await readerRecords.reader(reader.rawValue, account: session.accountID) } catch { throw ServiceError.store(error) }
        guard let record else { throw ServiceError.readerNotFound }
        let described = Gateway.readerMessage(at: registry.clock, record, link: status)
        let (version, battery) = await softwareStatus(of: described)
        let decided: (SoftwareUpdatePolicy.Decision, ReaderGatewayV1.ReaderSoftwareUpdate?)
        do {
            decided = try await updates.decide(
                account: session.accountID, deviceType: described.deviceType, location: described.locationID, version: version, batteryLevel: battery
            )
        } catch { throw ServiceError.store(error) }
        guard let entry = decided.1 else { return ReaderGatewayV1.InstallAvailableUpdateResponse() }
        if let battery, battery <= SoftwareUpdatePolicy.minimumBatteryLevel {
            throw ServiceError(
                .readerSoftwareUpdateFailedBatteryLow,
                "the reader's battery is at \(Int((battery * 100).rounded())) %; an update needs more than 50 %. Charge the reader, then install again"
            )
        }
        let owned = ReaderRegistry.OwnedReader(session: session.id, reader: reader, generation: session.generation, home: session.home)
        switch await install(entry, on: owned, required: entry.required, account: session.accountID) {
        case .success(let installed):
            await softwareVersionInstalled(reader, version: installed, update: entry, account: session.accountID)
            await recordRunsLatest(reader, location: described.locationID, deviceType: described.deviceType, account: session.accountID)
            var response = ReaderGatewayV1.InstallAvailableUpdateResponse()
            response.version = installed
            return response
        case .failure(let failure):
            throw failure
        }
    }

    // MARK: steps

    /// Tells the owner the install starts, relays it, and waits for the reader's answer:
    /// the version installed, or why it failed (a lost link is READER_SOFTWARE_UPDATE_FAILED_INTERRUPTED;
    /// a failure is written to `account`'s event log here, an install by the caller with the version).
    func install(
        _ entry: ReaderGatewayV1.ReaderSoftwareUpdate, on owned: ReaderRegistry.OwnedReader, required: Bool, account: String
    ) async -> Result<String, ServiceError> {
        let result = await relayInstall(entry, on: owned, required: required)
        if case .failure(let failure) = result {
            await recorder.updateFailed(entry, reader: owned.reader, account: account, failure: failure)
        }
        return result
    }

    /// ``install(_:on:required:account:)``'s relay.
    private func relayInstall(
        _ entry: ReaderGatewayV1.ReaderSoftwareUpdate, on owned: ReaderRegistry.OwnedReader, required: Bool
    ) async -> Result<String, ServiceError> {
        var started = ReaderGatewayV1.UpdateStarted()
        started.readerID = owned.reader.rawValue
        started.update = entry
        let nowUnixMs = clock.nowUnixMs
        registry.softwareUpdateEvent(owned.reader, .updateStarted(started), nowUnixMs: nowUnixMs)
        var command = ReaderGatewayV1.ReaderCommand.InstallUpdate()
        command.version = entry.version
        command.components = entry.components
        command.durationEstimate = entry.durationEstimate
        command.required = required
        switch await router.route(.installUpdate(command), to: owned, isCollect: false, reboot: false) {
        case .answered(let result):
            if let status = result.status, status.code != .ok {
                let reason = status.reason == .unspecified || status.reason == .readerError ? .readerSoftwareUpdateFailed : status.reason
                return .failure(ServiceError(reason, status.message.isEmpty ? "the reader could not install update \(entry.version)" : status.message))
            }
            if case .updateVersion(let version)? = result.result, !version.isEmpty { return .success(version) }
            return .success(entry.version)
        case .failed(let error):
            if error.reason == .readerOffline || error.reason == .readerLinkMoved || error.reason == .readerTimeout {
                return .failure(ServiceError(
                    .readerSoftwareUpdateFailedInterrupted,
                    "the reader's link ended while it installed update \(entry.version) (\(error.message)); connect again to retry"
                ))
            }
            return .failure(error)
        }
    }

    /// The optional update is reported to the session that connected the reader.
    func reportUpdateAvailable(_ reader: ReaderID, _ entry: ReaderGatewayV1.ReaderSoftwareUpdate) {
        var available = ReaderGatewayV1.UpdateAvailable()
        available.readerID = reader.rawValue
        available.update = entry
        let nowUnixMs = clock.nowUnixMs
        registry.softwareUpdateEvent(reader, .updateAvailable(available), nowUnixMs: nowUnixMs)
    }

    /// The session's hold on the reader it just claimed.
    func ownedAfterClaim(_ token: String, context: CallContext) async throws(ServiceError) -> ReaderRegistry.OwnedReader {
        let session = try await lookup.session(token, context)
        guard let reader = session.reader else { throw ServiceError.notConnected }
        return ReaderRegistry.OwnedReader(session: session.id, reader: reader, generation: session.generation, home: session.home)
    }

    /// A connect that the update rules refused lets the reader go again.
    func releaseAfterFailedConnect(_ reader: ReaderID, token: String, context: CallContext) async throws(ServiceError) {
        let session = try await lookup.session(token, context)
        guard session.reader == reader else { return }
        try await releases.release(reader, session: session, reason: .requested)
    }

    /// The reader runs its location's latest version: remembered for the 30-day rule (only
    /// for device types with a catalog: the others never need it).
    func recordRunsLatest(_ reader: ReaderID, location: String, deviceType: ReaderGatewayV1.DeviceType, account: String) async {
        guard !location.isEmpty else { return }
        let nowMs = updates.nowUnixMs
        await followUp("recording that a reader runs its location's latest software", leaves: "a failed required update at its next connect is judged by an older date") {
            // Only device types with a catalog: the others never need the 30-day rule.
            guard try await !updates.entries(account: account, deviceType: deviceType).isEmpty else { return }
            try await updates.store.recordRanLatest(reader: reader.rawValue, location: location, atMs: nowMs)
        }
    }

    /// The reader installed `version` of `update`: the store (and admins) see it now, before its
    /// next heartbeat says so, and `reader.software_update.installed` is written with it.
    func softwareVersionInstalled(_ reader: ReaderID, version: String, update: ReaderGatewayV1.ReaderSoftwareUpdate, account: String) async {
        let details = ["object": "reader_software_update", "version": version, "required": update.required ? "true" : "false"]
        await followUp("recording a reader's new software version", leaves: "admins see the older version until its next attach") {
            try await recorder.events.softwareUpdateInstalled(reader: reader.rawValue, account: account, version: version, details: details)
        }
    }
}
