import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayWire

extension Gateway {
    /// Lists the location's readers. A new discovery supersedes the session's previous
    /// one: a discovery still waiting for its answer ends with DISCOVERY_CANCELED, and
    /// readers from any older discovery are stale for ConnectReader.
    func discoverReaders(_ request: ReaderGatewayV1.DiscoverReadersRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.DiscoverReadersResponse {
        let session = try await session(request.sessionToken, context)
        var location: String? = request.locationID.isEmpty ? session.locationScope : request.locationID
        if let scope = session.locationScope, let wanted = location, wanted != scope {
            throw ServiceError(.permissionDenied, "this session's connection token is limited to another location; mint a token for this location")
        }
        if let wanted = location {
            let found: LocationRecord?
            do { found = try await database.location(wanted, account: session.accountID) } catch { throw ServiceError.store(error) }
            guard found != nil else { throw ServiceError.locationNotFound }
        } else {
            location = nil
        }
        let token = session.token
        let started = state.withLock { state -> (DiscoveryStateMachine.StartResult, superseded: DiscoveryWaiter?)? in
            guard state.sessions[token] != nil else { return nil }
            let result = state.sessions[token]!.discovery.startDiscovery(at: .now)
            guard case .start(_, let previous?) = result else { return (result, nil) }
            return (result, state.takeDiscoveryWaiter(token, previous))
        }
        let discovery: DiscoveryStateMachine.DiscoveryID
        switch started {
        case nil:
            throw ServiceError.sessionUnknown
        case (.refuseRateLimited(let retryAfter), _)?:
            throw ServiceError(.rateLimited, "too many discoveries from this session; retry in \(Int((retryAfter.seconds * 1000).rounded(.up))) ms")
        case (.start(let id, _), let superseded)?:
            discovery = id
            if let superseded {
                superseded.answer.resume(returning: .failure(.discoveryCanceled(superseded.discovery, supersededBy: id)))
            }
        }
        let records = try await readers(for: discovery, of: token, account: session.accountID, location: location).get()
        let answered = state.withLock { state -> (DiscoveryStateMachine.AnswerResult, [ReaderGatewayV1.Reader])? in
            guard state.sessions[token] != nil else { return nil }
            let result = state.sessions[token]!.discovery.answerReady(discovery)
            guard result == .answer else { return (result, []) }
            state.sessions[token]!.discovered = Set(records.map(\.id))
            return (result, records.map { Gateway.readerMessage($0, link: state.links[ReaderID($0.id)]) })
        }
        switch answered {
        case nil:
            throw ServiceError.sessionUnknown
        case (.superseded(let newer), _)?:
            throw ServiceError.discoveryCanceled(discovery, supersededBy: newer)
        case (.cancelled, _)?:
            throw ServiceError.discoveryCanceled(discovery, supersededBy: nil)
        case (.answer, let readers)?:
            var response = ReaderGatewayV1.DiscoverReadersResponse()
            response.discoveryID = Gateway.wireDiscoveryID(discovery)
            response.readers = readers
            return response
        }
    }

    /// The readers for `discovery` from the store, or DISCOVERY_CANCELED as soon as the
    /// discovery is cancelled or superseded while it waits (the store's late answer is
    /// then dropped).
    private func readers(
        for discovery: DiscoveryStateMachine.DiscoveryID, of token: String, account: String, location: String?
    ) async -> Result<[ReaderRecord], ServiceError> {
        await withCheckedContinuation { answer in
            let registered = state.withLock { state -> Bool in
                // Superseded or cancelled before it could wait: nothing to wait for.
                guard state.sessions[token]?.discovery.state == .running(discovery) else { return false }
                state.discoveryWaiters[token] = DiscoveryWaiter(discovery: discovery, answer: answer)
                return true
            }
            guard registered else {
                // The answer check that follows says superseded or cancelled.
                answer.resume(returning: .success([]))
                return
            }
            Task {
                let result: Result<[ReaderRecord], ServiceError>
                do {
                    result = .success(try await database.readers(account: account, location: location))
                } catch {
                    result = .failure(.store(error))
                    state.withLock { $0.sessions[token]?.discovery.abandon(discovery) }
                }
                state.withLock { $0.takeDiscoveryWaiter(token, discovery) }?.answer.resume(returning: result)
            }
        }
    }

    /// Cancels the session's discovery still waiting for its answer (its call ends with
    /// DISCOVERY_CANCELED). A discovery that answered is complete: nothing to cancel.
    func cancelDiscovery(_ request: ReaderGatewayV1.CancelDiscoveryRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.CancelDiscoveryResponse {
        let session = try await session(request.sessionToken, context)
        var named: DiscoveryStateMachine.DiscoveryID?
        if !request.discoveryID.isEmpty {
            guard let id = Gateway.discoveryID(request.discoveryID) else {
                throw ServiceError.invalid("discovery_id \(request.discoveryID.debugDescription) is not one this gateway issued; leave it empty to cancel the running discovery")
            }
            named = id
        }
        let token = session.token
        let cancelled = state.withLock { state -> DiscoveryWaiter? in
            guard case .cancelled(let id)? = state.sessions[token]?.discovery.cancelDiscovery(named) else { return nil }
            return state.takeDiscoveryWaiter(token, id)
        }
        if let cancelled {
            cancelled.answer.resume(returning: .failure(.discoveryCanceled(cancelled.discovery, supersededBy: nil)))
        }
        return ReaderGatewayV1.CancelDiscoveryResponse()
    }

    /// A discovery id as the wire carries it (`disc_7`).
    static func wireDiscoveryID(_ id: DiscoveryStateMachine.DiscoveryID) -> String { "disc_\(id.value)" }

    /// The discovery a wire id names; nil when this gateway never issues such an id.
    static func discoveryID(_ text: String) -> DiscoveryStateMachine.DiscoveryID? {
        guard text.hasPrefix("disc_"), let value = UInt64(text.dropFirst(5)) else { return nil }
        return DiscoveryStateMachine.DiscoveryID(value)
    }

    /// A reader as discovery and the admin surface show it, live status from its link.
    static func readerMessage(_ record: ReaderRecord, link: ReaderLinkState?) -> ReaderGatewayV1.Reader {
        var reader = ReaderGatewayV1.Reader()
        reader.id = record.id
        reader.serialNumber = record.serial
        reader.label = record.label
        reader.deviceType = record.deviceType
        reader.softwareVersion = record.softwareVersion
        reader.locationID = record.locationID ?? ""
        reader.simulated = record.deviceType == .simulatedWiseposE
        if let lastSeen = record.lastSeen { reader.lastSeenUnixMs = Int64(lastSeen.timeIntervalSince1970 * 1000) }
        if let link {
            reader.networkStatus = .online
            reader.activity = link.activity
            reader.ipAddress = link.ipAddress
            reader.batteryLevel = link.batteryLevel
            reader.softwareVersion = link.record.softwareVersion
            reader.lastSeenUnixMs = Gateway.nowUnixMs()
        } else {
            // No link here: online when another replica holds its link.
            reader.networkStatus = record.online ? .online : .offline
        }
        return reader
    }

    func readerMessage(_ id: String, account: String) async throws(ServiceError) -> ReaderGatewayV1.Reader {
        let record: ReaderRecord?
        do { record = try await database.reader(id, account: account) } catch { throw ServiceError.store(error) }
        guard let record else { throw ServiceError.readerNotFound }
        let link = state.withLock { $0.links[ReaderID(id)] }
        return Gateway.readerMessage(record, link: link)
    }
}
