import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// The commands a session sends to the reader it owns: collect and confirm (fenced in the
/// store, the reader marked in use while they run), the display, cancel and reboot commands
/// relayed from the connection's loop, and the software update a lane installs or cancels.
struct SDKCommands: StoreFollowUps {
    let configuration: ServiceConfiguration
    /// Collect's and confirm's in-use mark, fenced by generation.
    let ownership: any OwnershipRepository
    let registry: LiveRegistry
    let metrics: GatewayMetrics
    /// `WatchFleet`'s watchers, told when a reader is marked in use and again when it is free.
    let fleet: any FleetChanges
    /// Re-reads the row of a reader whose store or home knew a newer owner.
    let follower: any OwnershipFollowing
    let lookup: SDKSessionLookup
    /// Sends a command down the local link, or over the replica link to the reader's home.
    let router: SDKCommandRouter
    let softwareUpdates: SDKSoftwareUpdates
    /// `reader.action.succeeded` / `.failed` for collect, confirm, cancel and the display.
    let recorder: SDKEventRecorder
    let logger: Logger

    /// A collect call arrived (on the connection's loop, before its task): named, so that a
    /// cancel the lane sends after it finds it wherever it is on its way to the reader.
    func collectArrived(_ request: ReaderGatewayV1.CollectPaymentMethodRequest, _ context: CallContext) -> CollectTicket? {
        registry.collectArrived(request.sessionToken, connection: context.connectionID)
    }

    func collectPaymentMethod(
        _ request: ReaderGatewayV1.CollectPaymentMethodRequest, ticket: CollectTicket?, _ context: CallContext
    ) async throws(ServiceError) -> ReaderGatewayV1.CollectPaymentMethodResponse {
        defer { if let ticket { registry.collectEnded(ticket) } }
        let result = try await relay(
            request.sessionToken, .collectPaymentMethod, .collectPaymentMethod(request.params ?? .init()), context, ticket: ticket
        )
        var response = ReaderGatewayV1.CollectPaymentMethodResponse()
        response.paymentIntentID = request.params?.paymentIntentID ?? ""
        if case .paymentMethod(let method)? = result.result { response.paymentMethod = method }
        return response
    }

    func confirmPaymentIntent(
        _ request: ReaderGatewayV1.ConfirmPaymentIntentRequest, _ context: CallContext
    ) async throws(ServiceError) -> ReaderGatewayV1.ConfirmPaymentIntentResponse {
        let result = try await relay(request.sessionToken, .confirmPaymentIntent, .confirmPaymentIntent(request.params ?? .init()), context)
        var response = ReaderGatewayV1.ConfirmPaymentIntentResponse()
        if case .paymentIntent(let intent)? = result.result { response.result = intent }
        return response
    }

    /// InstallAvailableUpdate: the connected reader's available update, when no payment runs on it.
    func installAvailableUpdate(
        _ request: ReaderGatewayV1.InstallAvailableUpdateRequest, _ context: CallContext
    ) async throws(ServiceError) -> ReaderGatewayV1.InstallAvailableUpdateResponse {
        try await softwareUpdates.installAvailableUpdate(request, context)
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
        reboot: Bool = false,
        ticket: CollectTicket? = nil
    ) async throws(ServiceError) -> ReaderGatewayV1.CommandResult {
        try await lookup.answering(token: token, context) { () async throws(ServiceError) in
            try await relayFenced(token, kind, command, context, reboot: reboot, ticket: ticket)
        }
    }

    /// ``relay(_:_:_:_:reboot:)``'s fences and the relay itself.
    private func relayFenced(
        _ token: String,
        _ kind: GatewayDomain.ReaderCommand?,
        _ command: ReaderGatewayV1.ReaderCommand.Command,
        _ context: CallContext,
        reboot: Bool,
        ticket: CollectTicket?
    ) async throws(ServiceError) -> ReaderGatewayV1.CommandResult {
        let session = try await lookup.session(token, context)
        if let refusal = await lookup.takePendingRefusal(session) { throw ServiceError.refusal(refusal) }
        guard let reader = session.reader else { throw ServiceError.notConnected }
        let fenceKind = kind ?? .clearReaderDisplay
        let started = configuration.clock.now
        if fenceKind.marksReaderInUse {
            // Collect and confirm mark the reader in use in the store, fenced by generation,
            // so that a failIfInUse connect on any replica sees the transaction.
            var decision: CommandStartResult
            do {
                decision = try await ownership.commandStarted(fenceKind, reader: reader, session: session.id, generation: session.generation)
                if case .refused(.readerBusy) = decision, try await clearStaleMark(reader, session: session) {
                    decision = try await ownership.commandStarted(fenceKind, reader: reader, session: session.id, generation: session.generation)
                }
            } catch { throw ServiceError.store(error) }
            if case .refused(let refusal) = decision {
                // The store saw the takeover before this replica's memory did: the
                // session hears of it (event first), then the command fails.
                if refusal == .connectedToAnotherSession {
                    guard await follower.refresh(reader) else { throw ServiceError.ownershipUnconfirmed }
                    _ = await lookup.takePendingRefusal(session)
                }
                throw ServiceError.refusal(refusal)
            }
            fleet.changed([reader.rawValue])
        }
        // Other commands are fenced by this replica's memory: the session still owns the
        // reader at its generation (a takeover clears it under the same lock first).
        let stillOwner = fenceKind.marksReaderInUse || registry.holds(reader, session: session.id, at: session.generation)
        guard stillOwner else {
            if let refusal = await lookup.takePendingRefusal(session) { throw ServiceError.refusal(refusal) }
            throw ServiceError.notConnected
        }
        let owned = ReaderRegistry.OwnedReader(session: session.id, reader: reader, generation: session.generation, home: session.home)
        let outcome = await router.route(command, to: owned, isCollect: kind == .collectPaymentMethod, reboot: reboot, ticket: ticket)
        if fenceKind.marksReaderInUse {
            await followUp(
                "recording the end of a \(fenceKind.rawValue)",
                leaves: "PostgreSQL shows the reader mid-transaction (failIfInUse connects are refused) until its owner's next command or release"
            ) {
                try await ownership.commandFinished(fenceKind, reader: reader, session: session.id, generation: session.generation)
            }
            fleet.changed([reader.rawValue])
        }
        metrics.relayedCommandDuration.unlabeled.observe(configuration.clock.now - started)
        let answer = outcome.answer
        recorder.commandEnded(command, reader: reader, account: session.accountID, session: session.id, failure: answer.failure)
        return try answer.get()
    }

    /// The reader is marked in use by this very session: the mark is left by an
    /// earlier collect or confirm of the session whose finish never reached the
    /// store (its replica died, PostgreSQL was down when it ended), or that the
    /// lane gave up on (its call failed or timed out while the reader was still
    /// on it). A session runs one transaction at a time, so its new command
    /// supersedes the old one: the mark is cleared and the caller marks the
    /// reader again. True when it did.
    func clearStaleMark(_ reader: ReaderID, session: RegistrySession) async throws(StoreError) -> Bool {
        guard let stale = try await ownership.commandMark(reader: reader, session: session.id) else { return false }
        logger.notice("a session's new transaction superseded its own unfinished one", ["reader": reader, "session": session.id, "command": stale.rawValue])
        _ = try await ownership.commandFinished(stale, reader: reader, session: session.id, generation: session.generation)
        return true
    }
}
