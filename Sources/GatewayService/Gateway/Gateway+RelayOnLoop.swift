import GatewayDomain
import GatewayWire

extension Gateway {
    /// The commands relayed without a task: the non-transactional ones, which the
    /// store does not fence (collect and confirm go through ``relay(_:_:_:_:reboot:)``).
    var loopRelayRoutes: [(String, MethodHandler)] {
        typealias Sdk = ReaderGatewayV1.Sdk
        return [
            MethodHandler.immediate(Sdk.setReaderDisplay) { [self] request, call, context in
                relayOnLoop(request.sessionToken, .setDisplay(request.cart ?? .init()), call, context) { _ in
                    ReaderGatewayV1.SetReaderDisplayResponse().serializedBytes()
                }
            },
            MethodHandler.immediate(Sdk.clearReaderDisplay) { [self] request, call, context in
                relayOnLoop(request.sessionToken, .clearDisplay(.init()), call, context) { _ in
                    ReaderGatewayV1.ClearReaderDisplayResponse().serializedBytes()
                }
            },
            MethodHandler.immediate(Sdk.cancelCollectPaymentMethod) { [self] request, call, context in
                relayOnLoop(request.sessionToken, .cancelCollect(.init()), call, context) { _ in
                    ReaderGatewayV1.CancelCollectPaymentMethodResponse().serializedBytes()
                }
            },
            MethodHandler.immediate(Sdk.rebootReader) { [self] request, call, context in
                relayOnLoop(request.sessionToken, .reboot(.init()), call, context, reboot: true) { _ in
                    ReaderGatewayV1.RebootReaderResponse().serializedBytes()
                }
            },
            MethodHandler.immediate(Sdk.installAvailableUpdate) { [self] request, call, context in
                relayOnLoop(request.sessionToken, .installUpdate(.init()), call, context) { result in
                    var response = ReaderGatewayV1.InstallAvailableUpdateResponse()
                    if case .updateVersion(let version)? = result.result { response.version = version }
                    return response.serializedBytes()
                }
            },
        ]
    }

    /// Relays a non-transactional command from the lane connection's event loop
    /// without entering a task: one lock to check the session (lease, pending
    /// refusal, owned reader) and register the command on the reader's link, then
    /// the command goes to the reader's connection; the reader's result is matched
    /// on the reader's loop (see ``commandResultReceived(_:reader:linkID:)``) and
    /// the answer goes to the lane's connection. The first relay brings the reader's
    /// connection to the lane's loop (``ServerConnection/follow(_:)``), so from then
    /// on both hand-overs stay on one thread. The fence is the same as the task
    /// path's: the session owns the reader in this replica's memory, checked under
    /// the same lock that a takeover clears it under, and a displaced session's
    /// armed refusal is taken first (its disconnect event was queued before it).
    func relayOnLoop(
        _ token: String,
        _ command: ReaderGatewayV1.ReaderCommand.Command,
        _ call: ServerCall,
        _ context: CallContext,
        reboot: Bool = false,
        response: @escaping @Sendable (ReaderGatewayV1.CommandResult) -> [UInt8]
    ) {
        let lease = configuration.sessionLease
        let timeout = configuration.commandTimeout
        let started = ContinuousClock.now
        // The histogram alone: capturing the whole metrics struct would retain every family.
        let relayedCommandDuration = metrics.relayedCommandDuration.unlabeled
        let complete: @Sendable (CommandOutcome) -> Void = { outcome in
            relayedCommandDuration.observe(ContinuousClock.now - started)
            switch outcome {
            case .failed(let error):
                call.end(error.status)
            case .answered(let result):
                if let status = result.status, status.code != .ok {
                    let reason = status.reason == .unspecified ? ReaderGatewayV1.ErrorReason.readerError : status.reason
                    call.end(ServiceError(reason, status.message.isEmpty ? "the reader reported a failure" : status.message).status)
                } else {
                    call.respond(response(result))
                }
            }
        }
        let decision = state.withLock { state -> Result<LoopRelay, ServiceError> in
            guard let index = state.sessions.index(forKey: token) else { return .success(.unknownSession) }
            // Sessions and links are reached through `inout` only: reading a field through
            // `values[index]` would copy the whole struct (and retain everything in it).
            let owned: OwnedReader
            switch Gateway.checkRelay(&state.sessions.values[index], lease: lease, connectionID: context.connectionID) {
            case .failure(let error): return .failure(error)
            case .success(let found): owned = found
            }
            // The reader's link lives on another replica: over the replica link, in a task.
            guard let linkIndex = state.links.index(forKey: owned.reader) else { return .success(.remote(state.sessions.values[index], owned.reader)) }
            guard let (link, commandID) = state.registerCommand(
                at: linkIndex, session: owned.session, ifCurrent: owned.generation, isCollect: false, reboot: reboot, deadline: .now + timeout, complete: complete
            ) else {
                // The link has seen a newer owner (a change made on another replica whose
                // notice this session has not heard yet): tell the session first.
                return .success(.stale(owned.session, owned.reader))
            }
            return .success(.local(link, commandID, owned.session))
        }
        switch decision {
        case .failure(let error):
            call.end(error.status)
        case .success(.local(let link, let commandID, let session)):
            link.send(Gateway.downlink(command, id: commandID, session: session, timeout: timeout))
            // The reader talks to its owner alone: its connection joins the lane's loop, so
            // the next commands and answers pass between the two without a thread hop.
            link.connection.follow(call.connection)
        case .success(.remote(let session, let reader)):
            Task { complete(await relayRemote(command, to: reader, session: session, isCollect: false, reboot: reboot)) }
        case .success(.stale(let session, let reader)):
            Task {
                await refresh(reader)
                let refusal = takePendingRefusal(of: session)
                call.end(ServiceError.refusal(refusal ?? .connectedToAnotherSession).status)
            }
        case .success(.unknownSession):
            // Not held here: adopt it from PostgreSQL if its lease runs, then relay.
            Task {
                guard (try? await adoptSession(token, context)) ?? nil != nil else {
                    call.end(ServiceError.sessionUnknown.status)
                    return
                }
                relayOnLoop(token, command, call, context, reboot: reboot, response: response)
            }
        }
    }

    /// Where a loop relay goes: down a link here, or to the reader's home replica.
    enum LoopRelay {
        case local(ServerCall, UInt64, SessionID)
        case remote(SessionState, ReaderID)
        /// The session's generation is older than the link's newest.
        case stale(SessionID, ReaderID)
        /// No such session in memory: it may be adopted from PostgreSQL.
        case unknownSession
    }

    /// A session, the reader it owns, and the generation it owns it at.
    struct OwnedReader {
        var session: SessionID
        var reader: ReaderID
        var generation: OwnershipGeneration
    }

    /// The session part of a loop relay: lease, use by this connection, the armed
    /// refusal (taken), the owned reader.
    static func checkRelay(
        _ session: inout SessionState, lease: Duration, connectionID: UInt64
    ) -> Result<OwnedReader, ServiceError> {
        if let since = session.detachedSince, ContinuousClock.now - since >= lease { return .failure(.sessionUnknown) }
        session.connections.insert(connectionID)
        session.detachedSince = nil
        session.lastSeenUnixMs = Gateway.nowUnixMs()
        if let refusal = session.pendingRefusal {
            session.pendingRefusal = nil
            return .failure(.refusal(refusal))
        }
        guard let reader = session.reader else { return .failure(.notConnected) }
        return .success(OwnedReader(session: session.id, reader: reader, generation: session.generation))
    }

    /// A reader's command result, matched to its command on the reader
    /// connection's loop (one lock), its outcome handed over outside the lock.
    func commandResultReceived(_ result: ReaderGatewayV1.CommandResult, reader: ReaderID, linkID: UInt64) {
        let pending = state.withLock { state -> PendingCommand? in
            guard let index = state.links.index(forKey: reader) else { return nil }
            return Gateway.takeResult(&state.links.values[index], commandID: result.commandID, linkID: linkID)
        }
        pending?.complete(.answered(result))
    }

    /// Through `inout` (the link is modified in place, never copied).
    static func takeResult(_ link: inout ReaderLinkState, commandID: UInt64, linkID: UInt64) -> PendingCommand? {
        if link.linkID == linkID { link.lastHeartbeat = .now }
        return link.pending.removeValue(forKey: commandID)
    }
}
