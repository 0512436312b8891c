import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// Discovery on the SDK surface: DiscoverReaders (one answer per call, kept with the
/// session's row before the lane sees it) and CancelDiscovery.
struct SDKDiscovery: Sendable {
    let clock: any ServiceClock
    /// The answered discovery, kept with the session's row.
    let sessions: any SessionRepository
    let readerRecords: any ReaderRepository
    let locations: any LocationRepository
    /// Hides Bluetooth readers bonded to another device.
    let bonds: BluetoothBonds
    /// The catalog an answer's readers show their available updates from.
    let updates: SoftwareUpdateCatalog
    let registry: LiveRegistry
    let lookup: SDKSessionLookup

    /// Lists the location's readers, or with a filter the one reader it names (nothing when
    /// none of the session's account and location matches). A new discovery supersedes the
    /// session's previous one: a discovery still waiting for its answer ends with
    /// DISCOVERY_CANCELED, and readers from any older discovery are stale for ConnectReader.
    func discoverReaders(_ request: ReaderGatewayV1.DiscoverReadersRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.DiscoverReadersResponse {
        let filter: ReaderFilter?
        do {
            filter = try ReaderFilter.parse(readerID: request.filter?.readerID ?? "", serialNumber: request.filter?.serialNumber ?? "")
        } catch {
            throw ServiceError.invalid(error.message)
        }
        return try await discoverReaders(request, filter: filter, context)
    }

    /// DiscoverReaders with its filter parsed (EasyConnect's discovery too).
    func discoverReaders(
        _ request: ReaderGatewayV1.DiscoverReadersRequest, filter: ReaderFilter?, _ context: CallContext
    ) async throws(ServiceError) -> ReaderGatewayV1.DiscoverReadersResponse {
        let session = try await lookup.session(request.sessionToken, context)
        var location: String? = request.locationID.isEmpty ? session.locationScope : request.locationID
        if let scope = session.locationScope, let wanted = location, wanted != scope {
            throw ServiceError(.permissionDenied, "this session's connection token is limited to another location; mint a token for this location")
        }
        if let wanted = location {
            let found: LocationRecord?
            do { found = try await locations.location(wanted, account: session.accountID) } catch { throw ServiceError.store(error) }
            guard found != nil else { throw ServiceError.locationNotFound }
        } else {
            location = nil
        }
        let token = session.token
        let discovery: DiscoveryStateMachine.DiscoveryID
        switch registry.discoveryStarted(token) {
        case nil:
            throw ServiceError.sessionUnknown
        case .refuseRateLimited(let retryAfter)?:
            throw ServiceError(
                .rateLimited, "too many discoveries from this session; retry in \(retryAfter.millisecondsRoundedUp) ms", retryAfter: retryAfter
            )
        case .start(let id, _)?:
            discovery = id
        }
        // A Tap to Pay reader is its phone: only that phone's sessions discover it.
        let ownTapToPay = TapToPayStore.serial(posDeviceID: session.posDeviceID)
        let listed = try await readers(for: discovery, of: token, account: session.accountID, location: location, filter: filter).get()
            .filter { $0.deviceType != .tapToPay || $0.serial == ownTapToPay }
        // A Bluetooth reader talks to the device it is bonded to: only that device discovers it.
        let records = try await bonds.withoutForeignBluetoothReaders(listed, device: session.posDeviceID)
        let answered = registry.discoveryAnswered(token, discovery, readers: records.map { ReaderID($0.id) }).map { result, links in
            (result, zip(records, links).map { Gateway.readerMessage(at: clock, $0, link: $1) })
        }
        switch answered {
        case nil:
            throw ServiceError.sessionUnknown
        case (.superseded(let newer), _)?:
            throw ServiceError.discoveryCanceled(discovery, supersededBy: newer)
        case (.cancelled, _)?:
            throw ServiceError.discoveryCanceled(discovery, supersededBy: nil)
        case (.answer, let readers)?:
            // Kept with the session's row before the lane sees the answer: a replica that takes
            // the session over (this one died or drained) honours these readers too.
            let kept = SessionDiscoveryRecord(answered: discovery.value, readers: records.map(\.id))
            let recorded: Bool
            do { recorded = try await sessions.recordDiscovery(kept, session: session.id.rawValue, epoch: session.epoch) } catch {
                throw ServiceError.store(error)
            }
            guard recorded else {
                // The row moved past this copy (the session was resumed on another connection
                // meanwhile): the copy is dropped and nothing is answered from it.
                lookup.dropStaleCopies([SessionEpoch(id: session.id, epoch: session.epoch)])
                throw ServiceError.sessionMoved
            }
            var response = ReaderGatewayV1.DiscoverReadersResponse()
            response.discoveryID = Gateway.wireDiscoveryID(discovery)
            response.readers = await withAvailableUpdates(readers, account: session.accountID)
            return response
        }
    }

    /// The readers for `discovery` from the store, or DISCOVERY_CANCELED as soon as the
    /// discovery is cancelled or superseded while it waits (the store's late answer is
    /// then dropped).
    private func readers(
        for discovery: DiscoveryStateMachine.DiscoveryID, of token: String, account: String, location: String?, filter: ReaderFilter?
    ) async -> Result<[ReaderRecord], ServiceError> {
        await withCheckedContinuation { answer in
            // Superseded or cancelled before it could wait: nothing to wait for.
            guard registry.discoveryWaiting(token, discovery, answer: answer) else {
                // The answer check that follows says superseded or cancelled.
                answer.resume(returning: .success([]))
                return
            }
            Task {
                let result: Result<[ReaderRecord], ServiceError>
                do {
                    if let filter {
                        result = .success(try await reader(filter, account: account, location: location))
                    } else {
                        result = .success(try await readerRecords.readers(account: account, location: location))
                    }
                } catch {
                    result = .failure(.store(error))
                }
                registry.discoveryListed(token, discovery, result)
            }
        }
    }

    /// The one reader `filter` names, read alone (the rest of the location is not), when it
    /// belongs to `account` and (given one) `location`: a reader elsewhere reads as unknown.
    private func reader(_ filter: ReaderFilter, account: String, location: String?) async throws(StoreError) -> [ReaderRecord] {
        let found: ReaderRecord?
        switch filter {
        case .readerID(let id): found = try await readerRecords.reader(id, account: account)
        case .serialNumber(let serial): found = try await readerRecords.reader(serial: serial)
        }
        guard let found, found.accountID == account, filter.matches(id: found.id, serial: found.serial) else { return [] }
        if let location, found.locationID != location { return [] }
        return [found]
    }

    /// Cancels the session's discovery still waiting for its answer (its call ends with
    /// DISCOVERY_CANCELED). A discovery that answered is complete: nothing to cancel.
    func cancelDiscovery(_ request: ReaderGatewayV1.CancelDiscoveryRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.CancelDiscoveryResponse {
        let session = try await lookup.session(request.sessionToken, context)
        var named: DiscoveryStateMachine.DiscoveryID?
        if !request.discoveryID.isEmpty {
            guard let id = Gateway.discoveryID(request.discoveryID) else {
                throw ServiceError.invalid("discovery_id \(request.discoveryID.debugDescription) is not one this gateway issued; leave it empty to cancel the running discovery")
            }
            named = id
        }
        let token = session.token
        registry.discoveryCancelled(token, named: named)
        return ReaderGatewayV1.CancelDiscoveryResponse()
    }

    /// Discovery's readers with their available updates (Stripe's reader.availableUpdate),
    /// from the cached catalog: no store read unless the cache is stale.
    private func withAvailableUpdates(_ readers: [ReaderGatewayV1.Reader], account: String) async -> [ReaderGatewayV1.Reader] {
        var shown: [ReaderGatewayV1.Reader] = []
        shown.reserveCapacity(readers.count)
        for reader in readers { shown.append(await updates.withAvailableUpdate(reader, account: account)) }
        return shown
    }
}
