import GatewayDomain
import GatewayRegistry
import GatewayWire

extension SDKCommands {
    // The commands relayed without a task: the non-transactional ones, which the store
    // does not fence (collect and confirm go through ``relay(_:_:_:_:reboot:)``).

    func setReaderDisplay(_ request: ReaderGatewayV1.SetReaderDisplayRequest, _ call: ServerCall, _ context: CallContext) {
        relayOnLoop(request.sessionToken, .setDisplay(request.cart ?? .init()), call, context) { _ in
            ReaderGatewayV1.SetReaderDisplayResponse().serializedBytes()
        }
    }

    func clearReaderDisplay(_ request: ReaderGatewayV1.ClearReaderDisplayRequest, _ call: ServerCall, _ context: CallContext) {
        relayOnLoop(request.sessionToken, .clearDisplay(.init()), call, context) { _ in
            ReaderGatewayV1.ClearReaderDisplayResponse().serializedBytes()
        }
    }

    func cancelCollectPaymentMethod(_ request: ReaderGatewayV1.CancelCollectPaymentMethodRequest, _ call: ServerCall, _ context: CallContext) {
        relayOnLoop(request.sessionToken, .cancelCollect(.init()), call, context, cancelsCollect: true) { _ in
            ReaderGatewayV1.CancelCollectPaymentMethodResponse().serializedBytes()
        }
    }

    func rebootReader(_ request: ReaderGatewayV1.RebootReaderRequest, _ call: ServerCall, _ context: CallContext) {
        relayOnLoop(request.sessionToken, .reboot(.init()), call, context, reboot: true) { _ in
            ReaderGatewayV1.RebootReaderResponse().serializedBytes()
        }
    }

    /// CancelReaderSoftwareUpdate: the session's running install (during ConnectReader, or
    /// an InstallAvailableUpdate) ends with COMMAND_CANCELED; nothing to cancel is no error.
    func cancelReaderSoftwareUpdate(_ request: ReaderGatewayV1.CancelReaderSoftwareUpdateRequest, _ call: ServerCall, _ context: CallContext) {
        relayOnLoop(request.sessionToken, .cancelUpdate(.init()), call, context) { result in
            var response = ReaderGatewayV1.CancelReaderSoftwareUpdateResponse()
            if case .updateVersion(let version)? = result.result { response.canceled = !version.isEmpty }
            return response.serializedBytes()
        }
    }

    /// Relays a non-transactional command from the lane connection's event loop
    /// without entering a task: one lock to check the session (lease, pending
    /// refusal, owned reader) and register the command on the reader's link, then
    /// the command goes to the reader's connection; the reader's result is matched
    /// on the reader's loop (see ``LiveRegistry/commandAnswered(_:reader:link:)``) and
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
        cancelsCollect: Bool = false,
        response: @escaping @Sendable (ReaderGatewayV1.CommandResult) -> [UInt8]
    ) {
        let lease = configuration.sessionLease
        let timeout = configuration.commandTimeout
        let clock = configuration.clock
        let started = clock.now
        // The histogram alone: capturing the whole metrics struct would retain every family.
        let relayedCommandDuration = metrics.relayedCommandDuration.unlabeled
        // The closure keeps references, not copies of this struct or the lookup (a retain and a
        // release per field, per command).
        let (registry, events, connection) = (self.registry, recorder.events, context.connectionID)
        let complete: CommandCompletion = { outcome in
            relayedCommandDuration.observe(clock.now - started)
            switch outcome {
            case .failed(let error):
                call.end(SDKSessionLookup.answering(error, token: token, connection: connection, registry: registry).status)
            case .answered(let result):
                switch outcome.answer {
                case .failure(let failure): call.end(failure.status)
                case .success: call.respond(response(result))
                }
            }
            // The reader's answer (or the gateway's ending of the command) goes in the event log
            // on a task, after the lane has its answer.
            SDKEventRecorder.commandEnded(command, token: token, registry: registry, failure: outcome.answer.failure, to: events)
        }
        switch registry.commandRequested(
            token, connection: context.connectionID, reboot: reboot, cancelsCollect: cancelsCollect, deadline: started + timeout, lease: lease,
            complete: complete
        ) {
        case .refused(let error):
            call.end(lookup.answering(error, token: token, context).status)
        case .refusedAfterEvents(let error, let stream, let sequence):
            stream.afterEvents(through: sequence) { call.end(lookup.answering(error, token: token, context).status) }
        case .local(let link, let commandID, let owned):
            link.send(Gateway.downlink(command, id: commandID, session: owned.session, timeout: timeout))
            // The reader talks to its owner alone: its connection joins the lane's loop, so
            // the next commands and answers pass between the two without a thread hop.
            link.connection.follow(call.connection)
        case .cancelledBeforeLink:
            // The session's collect had not reached the reader: it ends unsent (COMMAND_CANCELED).
            complete(.answered(ReaderGatewayV1.CommandResult()))
        case .afterCollect:
            // Written down the link by the collect's sender, right after the collect; the
            // reader's answer completes this call.
            break
        case .remote(let owned):
            // The reader's link lives on another replica: over the replica link, in a task.
            Task { complete(await router.relayRemote(command, to: owned, isCollect: false, reboot: reboot)) }
        case .stale(let owned):
            // The link has seen a newer owner (a change made on another replica whose
            // notice this session has not heard yet): tell the session first.
            Task {
                guard await follower.refresh(owned.reader) else {
                    call.end(ServiceError.ownershipUnconfirmed.status)
                    return
                }
                let refusal = await registry.takePendingRefusal(of: owned.session)
                call.end(lookup.answering(.refusal(refusal ?? .connectedToAnotherSession), token: token, context).status)
            }
        case .unknownSession:
            // Not held here: adopt it from PostgreSQL if its lease runs, then relay.
            Task {
                do throws(ServiceError) {
                    guard try await lookup.adoptSession(token, context) != nil else {
                        call.end(ServiceError.sessionUnknown.status)
                        return
                    }
                } catch {
                    // The store could not say (STORE_UNAVAILABLE): retryable, unlike an unknown session.
                    call.end(error.status)
                    return
                }
                relayOnLoop(token, command, call, context, reboot: reboot, cancelsCollect: cancelsCollect, response: response)
            }
        }
    }
}
