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
        reboot: Bool
    ) async -> CommandOutcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<CommandOutcome, Never>) in
            let sent = relay(command, to: reader, session: session, isCollect: isCollect, reboot: reboot) { outcome in
                continuation.resume(returning: outcome)
            }
            if !sent { continuation.resume(returning: .failed(ServiceError.refusal(.readerOffline))) }
        }
    }

    /// Registers a command on the reader's link (its outcome goes to `complete`) and
    /// sends it down the link. False when the reader has no link (`complete` is not called).
    func relay(
        _ command: ReaderGatewayV1.ReaderCommand.Command,
        to reader: ReaderID,
        session: SessionID,
        isCollect: Bool,
        reboot: Bool,
        complete: @escaping CommandCompletion
    ) -> Bool {
        let timeout = commandTimeout
        guard let (call, commandID) = dispatch(session, to: reader, isCollect: isCollect, reboot: reboot, deadline: clock.now + timeout, complete: complete) else {
            return false
        }
        call.send(Gateway.downlink(command, id: commandID, session: session, timeout: timeout))
        return true
    }
}
