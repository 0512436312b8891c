import GatewayDomain
import GatewayStore
import GatewayWire

extension Gateway {
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
        let started = state.withLock { state -> DiscoveryStateMachine.StartResult? in
            guard state.sessions[session.token] != nil else { return nil }
            return state.sessions[session.token]!.discovery.startDiscovery(at: .now)
        }
        let discovery: DiscoveryStateMachine.DiscoveryID
        switch started {
        case nil:
            throw ServiceError.sessionUnknown
        case .refuseAlreadyInProgress?:
            throw ServiceError(.discoveryAlreadyInProgress, "a discovery is already running for this session; cancel it with CancelDiscovery first")
        case .refuseRateLimited(let retryAfter)?:
            throw ServiceError(.rateLimited, "too many discoveries from this session; retry in \(Int((retryAfter.seconds * 1000).rounded(.up))) ms")
        case .start(let id)?:
            discovery = id
        }
        let records: [ReaderRecord]
        do { records = try await database.readers(account: session.accountID, location: location) } catch {
            _ = state.withLock { $0.sessions[session.token]?.discovery.cancelDiscovery() }
            throw ServiceError.store(error)
        }
        let readers = state.withLock { state -> [ReaderGatewayV1.Reader] in
            state.sessions[session.token]?.discovered = Set(records.map(\.id))
            return records.map { Gateway.readerMessage($0, link: state.links[ReaderID($0.id)]) }
        }
        var response = ReaderGatewayV1.DiscoverReadersResponse()
        response.discoveryID = "disc_\(discovery.value)"
        response.readers = readers
        return response
    }

    func cancelDiscovery(_ request: ReaderGatewayV1.CancelDiscoveryRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.CancelDiscoveryResponse {
        let session = try await session(request.sessionToken, context)
        _ = state.withLock { $0.sessions[session.token]?.discovery.cancelDiscovery() }
        return ReaderGatewayV1.CancelDiscoveryResponse()
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
