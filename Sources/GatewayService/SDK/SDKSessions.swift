import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// Sessions on the SDK surface: OpenSession (a new session, or a resume answered from the
/// row), Heartbeat, CloseSession, SubscribeEvents, and the sweep of leases.
struct SDKSessions: ShowsReaders, StoreFollowUps {
    let configuration: ServiceConfiguration
    let sessions: any SessionRepository
    /// The connection tokens a new session opens with.
    let tokens: any ConnectionTokenRepository
    /// The connected reader a resume answers with.
    let readerRecords: any ReaderRepository
    /// Ends the ownerships of expired sessions (the sweep).
    let ownership: any OwnershipRepository
    let registry: LiveRegistry
    let metrics: GatewayMetrics
    let node: NodeIdentity
    let lookup: SDKSessionLookup
    let releases: SDKReaderRelease
    let logger: Logger

    func openSession(_ request: ReaderGatewayV1.OpenSessionRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.OpenSessionResponse {
        var response = ReaderGatewayV1.OpenSessionResponse()
        response.leaseMs = Int64(configuration.sessionLease.seconds * 1000)
        if !request.resumeToken.isEmpty {
            // A resume is answered from the row, adopted anew, whatever memory holds: the
            // answer says what PostgreSQL says the session owns and discovered.
            registry.sessionResuming(request.resumeToken, connection: context.connectionID)
            guard let resumed = try await lookup.adoptSession(request.resumeToken, context) else { throw ServiceError.sessionUnknown }
            response.sessionID = resumed.id.rawValue
            response.sessionToken = resumed.token
            response.resumed = true
            if let reader = resumed.reader {
                response.connectedReader = try await readerMessage(reader.rawValue, account: resumed.accountID)
            }
            return response
        }
        guard !request.connectionToken.isEmpty else {
            throw ServiceError(.connectionTokenInvalid, "connection_token is empty; mint one with FleetAdmin.CreateConnectionToken from your backend")
        }
        guard !request.posDeviceID.isEmpty else { throw ServiceError.invalid("pos_device_id is empty; send a stable id of the point-of-sale device") }
        let token: ConnectionTokenRecord?
        do { token = try await tokens.connectionToken(request.connectionToken) } catch { throw ServiceError.store(error) }
        guard let token else {
            throw ServiceError(.connectionTokenInvalid, "the connection token is not valid; mint a new one with FleetAdmin.CreateConnectionToken")
        }
        guard !token.expired else {
            throw ServiceError(.connectionTokenExpired, "the connection token expired; mint a new one from your backend")
        }
        let id = SessionID(Secrets.sessionID())
        let secret = Secrets.sessionToken()
        let lane = request.laneLabel.isEmpty ? request.posDeviceID : request.laneLabel
        do {
            try await sessions.insertSession(
                id: id.rawValue, account: token.accountID, posDeviceID: request.posDeviceID, lane: lane,
                locationScope: token.locationID, nodeID: node.id, lease: configuration.sessionLease, token: secret
            )
        } catch { throw ServiceError.store(error) }
        let session = RegistrySession(
            id: id, token: secret, accountID: token.accountID, locationScope: token.locationID,
            posDeviceID: request.posDeviceID, lane: LaneLabel(lane),
            discovery: DiscoveryStateMachine(burst: configuration.discoveryBurst, perSecond: configuration.discoveriesPerSecond),
            connection: context.connectionID, nowUnixMs: configuration.clock.nowUnixMs
        )
        registry.sessionOpened(session)
        metrics.sessions.unlabeled.increment()
        response.sessionID = id.rawValue
        response.sessionToken = secret
        return response
    }

    func heartbeat(_ request: ReaderGatewayV1.HeartbeatRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.HeartbeatResponse {
        let session = try await lookup.session(request.sessionToken, context)
        // A session attached here (this call's connection is one of its own) has its lease renewed
        // by the sweeper every third of a lease, with every other attached session in one
        // statement: its heartbeat writes nothing, so PostgreSQL's work per lane does not grow
        // with the heartbeat rate. A detached one (a heartbeat without a connection of its own
        // cannot be that, but a concurrent close can) is renewed here as before.
        if session.detachedSince != nil {
            let held = SessionEpochRecord(id: session.id.rawValue, epoch: session.epoch)
            let renewed: Set<String>
            do { renewed = try await sessions.renewLeases([held], node: node.id, lease: configuration.sessionLease) } catch { throw ServiceError.store(error) }
            if renewed.isEmpty {
                lookup.dropStaleCopies([SessionEpoch(id: session.id, epoch: session.epoch)])
                throw ServiceError.sessionMoved
            }
        }
        var response = ReaderGatewayV1.HeartbeatResponse()
        response.leaseRemainingMs = Int64(configuration.sessionLease.seconds * 1000)
        return response
    }

    func closeSession(_ request: ReaderGatewayV1.CloseSessionRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.CloseSessionResponse {
        let session = try await lookup.session(request.sessionToken, context)
        if let reader = session.reader {
            await followUp("releasing the reader of a closing session", leaves: "the reader is released when the session's lease runs out") {
                try await releases.release(reader, session: session, reason: .requested)
            }
        }
        await endSession(session.token)
        return ReaderGatewayV1.CloseSessionResponse()
    }

    /// Forgets a session: its event stream ends, its row is closed.
    func endSession(_ token: String) async {
        guard let removed = registry.sessionEnded(token) else { return }
        metrics.sessions.unlabeled.decrement()
        await followUp("closing a session's row", leaves: "the row stays until its lease runs out") {
            try await sessions.closeSession(removed.id.rawValue, node: node.id)
        }
    }

    /// On the connection's loop as the call arrives: a session bound to this connection
    /// subscribes at once, so the calls the connection carries after it find the stream (a
    /// refusal for a lost reader then goes out after the event telling of the loss); a
    /// session this connection has not carried is adopted from its row first, in a task.
    func subscribeEvents(_ request: ReaderGatewayV1.SubscribeEventsRequest, call: ServerCall, context: CallContext) {
        let token = request.sessionToken
        if lookup.localSession(token, context) != nil, registry.subscribe(token, call: call, connection: context.connectionID) { return }
        Task {
            do throws(ServiceError) {
                // Not held on this connection: resume first if its stream here was ended so,
                // else adopted from its row (``SDKSessionLookup/session(_:_:)``).
                _ = try await lookup.session(token, context)
            } catch {
                call.end(error.status)
                return
            }
            guard registry.subscribe(token, call: call, connection: context.connectionID) else {
                call.end(ServiceError.sessionUnknown.status)
                return
            }
        }
    }
}
