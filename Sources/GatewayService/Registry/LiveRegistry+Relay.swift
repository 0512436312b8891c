import GatewayDomain
import GatewayRegistry
import GatewayWire

extension LiveRegistry {
    /// Sends a command down the reader's link and waits for its result (bounded by the command timeout).
    func relay(
        _ command: ReaderGatewayV1.ReaderCommand.Command,
        to reader: ReaderID,
        session: SessionID,
        isCollect: Bool,
        reboot: Bool,
        ticket: CollectTicket? = nil
    ) async -> CommandOutcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<CommandOutcome, Never>) in
            let sent = relay(command, to: reader, session: session, isCollect: isCollect, reboot: reboot, ticket: ticket) { outcome in
                continuation.resume(returning: outcome)
            }
            if !sent { continuation.resume(returning: .failed(ServiceError.refusal(.readerOffline))) }
        }
    }

    /// Registers a command on the reader's link (its outcome goes to `complete`) and
    /// sends it down the link. False when the reader has no link (`complete` is not called).
    /// A collect with its `ticket` is ordered with the session's cancels (``CollectInFlight``):
    /// one that a cancel reached first fails unsent, and a cancel that arrives while it is
    /// being written is written right after it.
    func relay(
        _ command: ReaderGatewayV1.ReaderCommand.Command,
        to reader: ReaderID,
        session: SessionID,
        isCollect: Bool,
        reboot: Bool,
        ticket: CollectTicket? = nil,
        complete: @escaping CommandCompletion
    ) -> Bool {
        let timeout = commandTimeout
        if let ticket {
            switch collectDispatched(ticket, to: reader, deadline: clock.now + timeout, complete: complete) {
            case .noLink:
                return false
            case .cancelled:
                complete(.failed(.collectCanceledBeforeReader))
            case .registered(let call, let commandID):
                call.send(Gateway.downlink(command, id: commandID, session: session, timeout: timeout))
                collectSent(ticket)
            }
            return true
        }
        guard let (call, commandID) = dispatch(session, to: reader, isCollect: isCollect, reboot: reboot, deadline: clock.now + timeout, complete: complete) else {
            return false
        }
        call.send(Gateway.downlink(command, id: commandID, session: session, timeout: timeout))
        return true
    }
}
