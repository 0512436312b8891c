import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// Connecting readers on the SDK surface: ConnectReader (a reader from the session's latest
/// answered discovery, claimed in the store, then its software update step) and
/// DisconnectReader.
struct SDKConnect: Sendable {
    let clock: any ServiceClock
    /// The reader a refused connect names (unknown, foreign or stale).
    let readerRecords: any ReaderRepository
    /// `ConnectReader`'s claims: those that arrive together share one statement and one commit.
    let connects: any ReaderClaims
    let registry: LiveRegistry
    let metrics: GatewayMetrics
    /// `WatchFleet`'s watchers, told of the claims made here.
    let fleet: any FleetChanges
    /// Re-reads the row of a reader memory says the session still holds.
    let follower: any OwnershipFollowing
    let lookup: SDKSessionLookup
    let releases: SDKReaderRelease
    let bonds: BluetoothBonds
    /// The required update a connect installs, or the optional one it reports.
    let softwareUpdates: SDKSoftwareUpdates

    func connectReader(_ request: ReaderGatewayV1.ConnectReaderRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.ConnectReaderResponse {
        var session = try await lookup.session(request.sessionToken, context)
        guard !request.readerID.isEmpty else { throw ServiceError.invalid("reader_id is empty; pass a reader from the latest DiscoverReaders") }
        let reader = ReaderID(request.readerID)
        if let current = session.reader, current != reader {
            // Memory may not have heard yet of a change made on another replica: the row
            // decides. A session that lost the reader hears of it (its event goes out first)
            // and this connect goes on; one that still holds it is refused.
            guard await follower.refresh(current) else {
                throw ServiceError(.storeUnavailable, "the ownership store could not be read to confirm that this session still holds reader \(current.rawValue); retry with backoff")
            }
            guard let fresh = registry.session(token: request.sessionToken) else { throw ServiceError.sessionUnknown }
            session = fresh
            if let still = session.reader, still != reader {
                throw ServiceError(.alreadyConnectedToReader, "this session is already connected to reader \(still.rawValue); disconnect it first")
            }
        }
        // The reader object must come from the session's latest discovery, which answered.
        guard let latest = session.discovery.latest else {
            throw ServiceError(.staleDiscovery, "this session has not discovered readers; call DiscoverReaders and connect a reader it returned")
        }
        let discoveryID: DiscoveryStateMachine.DiscoveryID
        if request.discoveryID.isEmpty {
            discoveryID = latest
        } else {
            guard let named = Gateway.discoveryID(request.discoveryID) else {
                throw ServiceError.invalid("discovery_id \(request.discoveryID.debugDescription) is not one this gateway issued")
            }
            discoveryID = named
        }
        switch session.discovery.checkConnect(readerFrom: discoveryID) {
        case .fresh:
            guard session.discovered.contains(reader.rawValue) else {
                // Unknown and foreign readers look alike; a known reader not in the latest answer is stale.
                let record: ReaderRecord?
                do { record = try await readerRecords.reader(reader.rawValue, account: session.accountID) } catch { throw ServiceError.store(error) }
                guard let record else { throw ServiceError.readerNotFound }
                if let refusal = try await bonds.foreignBluetoothRefusal(record, device: session.posDeviceID) { throw refusal }
                throw ServiceError.refusal(.staleDiscovery)
            }
        case .stale(let newer):
            throw ServiceError(
                .staleDiscovery,
                "the reader comes from discovery \(Gateway.wireDiscoveryID(discoveryID)), which a newer DiscoverReaders (\(Gateway.wireDiscoveryID(newer))) superseded; connect a reader from the latest discovery's answer"
            )
        case .notAnswered(let pending):
            throw ServiceError(
                .staleDiscovery,
                "the session's latest discovery \(Gateway.wireDiscoveryID(pending)) has not answered (it is still running, or was cancelled); connect a reader from a DiscoverReaders answer"
            )
        case .noDiscovery:
            throw ServiceError.refusal(.staleDiscovery)
        case .unknownDiscovery:
            throw ServiceError.invalid("discovery_id \(request.discoveryID.debugDescription) is not one of this session's discoveries")
        }
        let lane = request.laneLabel.isEmpty ? session.lane : LaneLabel(request.laneLabel)
        if !request.posDeviceID.isEmpty { session.posDeviceID = request.posDeviceID }
        session.lane = lane
        let claim = ConnectRequest(
            session: session.id, lane: lane, failIfInUse: request.failIfInUse,
            readerDiscovery: discoveryID, latestDiscovery: latest
        )
        let started = clock.now
        // The reader's row (for the answer) comes back with the claim's decision: one
        // statement and one round trip per connect, shared with the connects that arrive
        // with it (one statement and one commit per batch).
        let result: ConnectResult
        let record: ReaderRecord?
        do { (result, record) = try await connects.claim(reader, claim, readingRecordOf: session.accountID) } catch { throw ServiceError.store(error) }
        metrics.claimDuration.unlabeled.observe(clock.now - started)
        switch result {
        case .refused(let refusal, _):
            if refusal == .readerBusy { metrics.claims.labels(ClaimOutcome.refusedBusy).increment() }
            throw ServiceError.refusal(refusal)
        case .granted(let grant, let generation, let actions):
            let nowUnixMs = clock.nowUnixMs
            let posDeviceID = session.posDeviceID
            let claimed = registry.readerClaimed(
                reader, by: session.id, generation: generation, lane: lane, posDeviceID: posDeviceID, actions: actions, nowUnixMs: nowUnixMs
            )
            guard claimed else { throw ServiceError.sessionUnknown }
            fleet.changed([reader.rawValue])
            var replaced = false
            switch grant {
            case .connected: metrics.claims.labels(ClaimOutcome.connected).increment()
            case .replaced:
                replaced = true
                metrics.claims.labels(ClaimOutcome.replaced).increment()
            case .alreadyOwner: break
            }
            var response = ReaderGatewayV1.ConnectReaderResponse()
            guard let row = record else { throw ServiceError.readerNotFound }
            response.reader = Gateway.readerMessage(at: registry.clock, row, link: registry.linkStatus(of: reader))
            response.generation = UInt64(generation.rawValue)
            response.replacedOtherSession = replaced
            try await softwareUpdates.connectSoftwareUpdateStep(reader, token: request.sessionToken, account: session.accountID, context: context, response: &response)
            return response
        }
    }

    func disconnectReader(_ request: ReaderGatewayV1.DisconnectReaderRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.DisconnectReaderResponse {
        let session = try await lookup.session(request.sessionToken, context)
        if let refusal = await lookup.takePendingRefusal(session) { throw ServiceError.refusal(refusal) }
        guard let reader = session.reader else { throw ServiceError.notConnected }
        try await releases.release(reader, session: session, reason: .requested)
        return ReaderGatewayV1.DisconnectReaderResponse()
    }
}
