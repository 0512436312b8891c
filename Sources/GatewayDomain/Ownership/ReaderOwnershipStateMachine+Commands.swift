extension ReaderOwnershipStateMachine {
    /// Decides whether an owner may start a command; fenced by the generation it was granted.
    public mutating func commandStarted(
        _ command: ReaderCommand,
        session: SessionID,
        generation claimed: OwnershipGeneration
    ) -> CommandStartResult {
        if let refusal = fence(session: session, generation: claimed) { return .refused(refusal) }
        guard command.marksReaderInUse else { return .proceed }
        if commandInProgress != nil { return .refused(.readerBusy) }
        commandInProgress = CommandInProgress(command: command, session: session)
        return .proceed
    }

    /// Records that a command finished on the reader (succeeded, failed or was cancelled).
    public mutating func commandFinished(
        _ command: ReaderCommand,
        session: SessionID,
        generation claimed: OwnershipGeneration
    ) -> CommandFinishResult {
        if let refusal = fence(session: session, generation: claimed) { return .ignored(refusal) }
        guard commandInProgress == CommandInProgress(command: command, session: session) else {
            return .ignored(nil)
        }
        commandInProgress = nil
        return .finished
    }

    /// Why a write by `session` holding `claimed` must not apply, or nil when it is the owner's.
    ///
    /// An older generation means the reader changed hands since: "connected to another
    /// session". The store's fenced statements give the same answers.
    public func fence(session: SessionID, generation claimed: OwnershipGeneration) -> OwnershipRefusal? {
        if case .unknown = link { return .unknownReader }
        if let owner, owner.session == session, claimed == generation { return nil }
        if claimed < generation { return .connectedToAnotherSession }
        if case .offline = link { return .readerOffline }
        return .notConnected
    }
}
