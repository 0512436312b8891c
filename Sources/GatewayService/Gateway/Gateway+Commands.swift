import GatewayDomain
import GatewayStore
import GatewayWire

extension Gateway {
    var commandRoutes: [(String, MethodHandler)] {
        typealias Sdk = ReaderGatewayV1.Sdk
        return [
            MethodHandler.unary(Sdk.collectPaymentMethod) { [self] request, context throws(ServiceError) in
                let result = try await relay(request.sessionToken, .collectPaymentMethod, .collectPaymentMethod(request.params ?? .init()), context)
                var response = ReaderGatewayV1.CollectPaymentMethodResponse()
                response.paymentIntentID = request.params?.paymentIntentID ?? ""
                if case .paymentMethod(let method)? = result.result { response.paymentMethod = method }
                return response
            },
            MethodHandler.unary(Sdk.confirmPaymentIntent) { [self] request, context throws(ServiceError) in
                let result = try await relay(request.sessionToken, .confirmPaymentIntent, .confirmPaymentIntent(request.params ?? .init()), context)
                var response = ReaderGatewayV1.ConfirmPaymentIntentResponse()
                if case .paymentIntent(let intent)? = result.result { response.result = intent }
                return response
            },
            MethodHandler.unary(Sdk.cancelCollectPaymentMethod) { [self] request, context throws(ServiceError) in
                _ = try await relay(request.sessionToken, nil, .cancelCollect(.init()), context)
                return ReaderGatewayV1.CancelCollectPaymentMethodResponse()
            },
            MethodHandler.unary(Sdk.setReaderDisplay) { [self] request, context throws(ServiceError) in
                _ = try await relay(request.sessionToken, .setReaderDisplay, .setDisplay(request.cart ?? .init()), context)
                return ReaderGatewayV1.SetReaderDisplayResponse()
            },
            MethodHandler.unary(Sdk.clearReaderDisplay) { [self] request, context throws(ServiceError) in
                _ = try await relay(request.sessionToken, .clearReaderDisplay, .clearDisplay(.init()), context)
                return ReaderGatewayV1.ClearReaderDisplayResponse()
            },
            MethodHandler.unary(Sdk.rebootReader) { [self] request, context throws(ServiceError) in
                _ = try await relay(request.sessionToken, nil, .reboot(.init()), context, reboot: true)
                return ReaderGatewayV1.RebootReaderResponse()
            },
            MethodHandler.unary(Sdk.installAvailableUpdate) { [self] request, context throws(ServiceError) in
                let result = try await relay(request.sessionToken, nil, .installUpdate(.init()), context)
                var response = ReaderGatewayV1.InstallAvailableUpdateResponse()
                if case .updateVersion(let version)? = result.result { response.version = version }
                return response
            },
        ]
    }

    /// Relays one command from a session to the reader it owns and waits for the answer.
    ///
    /// - Parameter kind: the ownership store's kind of the command, for the fence
    ///   (collect and confirm also mark the reader in use until they finish);
    ///   nil for commands fenced like a display change.
    func relay(
        _ token: String,
        _ kind: GatewayDomain.ReaderCommand?,
        _ command: ReaderGatewayV1.ReaderCommand.Command,
        _ context: CallContext,
        reboot: Bool = false
    ) async throws(ServiceError) -> ReaderGatewayV1.CommandResult {
        let session = try session(token, context)
        if let refusal = takePendingRefusal(session) { throw ServiceError.refusal(refusal) }
        guard let reader = session.reader else { throw ServiceError.notConnected }
        let fenceKind = kind ?? .clearReaderDisplay
        let started = ContinuousClock.now
        if fenceKind.marksReaderInUse {
            // Collect and confirm mark the reader in use in the store, fenced by generation,
            // so that a failIfInUse connect on any replica sees the transaction.
            let decision: CommandStartResult
            do {
                decision = try await ownership.commandStarted(fenceKind, reader: reader, session: session.id, generation: session.generation)
            } catch { throw ServiceError.store(error) }
            if case .refused(let refusal) = decision {
                // The store saw the takeover before this replica's memory did.
                if refusal == .connectedToAnotherSession { _ = takePendingRefusal(session) }
                throw ServiceError.refusal(refusal)
            }
        }
        // Other commands are fenced by this replica's memory: the session still owns the
        // reader at its generation (a takeover clears it under the same lock first).
        let stillOwner = fenceKind.marksReaderInUse || state.withLock { state in
            state.session(id: session.id).map { $0.reader == reader && $0.generation == session.generation } ?? false
        }
        guard stillOwner else {
            if let refusal = takePendingRefusal(session) { throw ServiceError.refusal(refusal) }
            throw ServiceError.notConnected
        }
        let outcome = await send(command, to: reader, session: session.id, isCollect: kind == .collectPaymentMethod, reboot: reboot)
        if fenceKind.marksReaderInUse {
            _ = try? await ownership.commandFinished(fenceKind, reader: reader, session: session.id, generation: session.generation)
        }
        metrics.relayedCommandDuration.unlabeled.observe(ContinuousClock.now - started)
        switch outcome {
        case .failed(let error):
            throw error
        case .answered(let result):
            if let status = result.status, status.code != .ok {
                let reason = status.reason == .unspecified ? ReaderGatewayV1.ErrorReason.readerError : status.reason
                throw ServiceError(reason, status.message.isEmpty ? "the reader reported a failure" : status.message)
            }
            return result
        }
    }

    /// Sends a command down the reader's link and waits for its result (bounded by the command timeout).
    func send(
        _ command: ReaderGatewayV1.ReaderCommand.Command,
        to reader: ReaderID,
        session: SessionID,
        isCollect: Bool,
        reboot: Bool
    ) async -> CommandOutcome {
        let timeout = configuration.commandTimeout
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<CommandOutcome, Never>) in
            let registered = state.withLock { state -> (ServerCall, UInt64)? in
                guard var link = state.links[reader] else { return nil }
                let commandID = link.nextCommandID
                link.nextCommandID += 1
                link.pending[commandID] = PendingCommand(
                    session: session, continuation: continuation, isCollect: isCollect, deadline: .now + timeout
                )
                if reboot { link.rebootRequested = true }
                state.links[reader] = link
                return (link.call, commandID)
            }
            guard let (call, commandID) = registered else {
                continuation.resume(returning: .failed(ServiceError.refusal(.readerOffline)))
                return
            }
            var message = ReaderGatewayV1.ReaderCommand()
            message.commandID = commandID
            message.timeoutMs = Int64(timeout.seconds * 1000)
            message.sessionID = session.rawValue
            message.command = command
            var downlink = ReaderGatewayV1.ReaderDownlink()
            downlink.message = .command(message)
            call.send(downlink)
        }
        return outcome
    }

    /// Fails the commands whose reader did not answer in time (the sweeper calls it).
    func expireCommands() {
        let now = ContinuousClock.now
        let expired = state.withLock { state -> [PendingCommand] in
            var expired: [PendingCommand] = []
            for (reader, link) in state.links where link.pending.values.contains(where: { $0.deadline <= now }) {
                for (id, pending) in link.pending where pending.deadline <= now {
                    expired.append(pending)
                    state.links[reader]?.pending[id] = nil
                }
            }
            return expired
        }
        let seconds = Int(configuration.commandTimeout.seconds)
        for pending in expired {
            pending.continuation.resume(returning: .failed(ServiceError(.readerTimeout, "the reader did not answer within \(seconds) s")))
        }
    }

    /// Hands a command its outcome, once.
    func resolve(reader: ReaderID, commandID: UInt64, with outcome: CommandOutcome) {
        let pending = state.withLock { state -> PendingCommand? in
            state.links[reader]?.pending.removeValue(forKey: commandID)
        }
        pending?.continuation.resume(returning: outcome)
    }
}
