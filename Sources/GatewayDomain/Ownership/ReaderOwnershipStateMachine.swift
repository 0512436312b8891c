/// Decides who owns one reader, by Stripe Terminal's "Multiple connections" rules.
///
/// A value type with no I/O: every event returns a small result saying what was decided and
/// what the caller must do (notify a displaced session, fail its next command, cancel a
/// command, record a history row). Unexpected input (a stale epoch, a finish for a command that
/// is not running, a disconnect from a non-owner) returns a result, it never traps.
///
/// The rules:
/// - one session owns a reader at a time; every change of owner increments ``generation``;
/// - connect with failIfInUse false takes the reader, idle or mid-transaction; the previous
///   owner is told it was disconnected and its next command fails;
/// - connect with failIfInUse true does the same when the reader is idle, and is refused
///   (``OwnershipRefusal/readerBusy``, recorded) when a collectPaymentMethod or
///   confirmPaymentIntent started by *another* session has not finished;
/// - a cart on the display is not in use; a session connecting again to the reader it owns is
///   not a takeover;
/// - a connect naming a reader object from an older discovery than the session's latest is
///   refused as stale; an offline or unknown reader has its own refusal;
/// - a reader re-attaching (a newer link epoch, on any replica) keeps its owner; only the loss
///   of its current link ends the ownership, and events from older links change nothing.
///
/// The order of checks on connect: unknown reader, stale discovery, offline, already owner,
/// in use by another session (failIfInUse), then grant. The store's one-statement claim
/// encodes the same order.
public struct ReaderOwnershipStateMachine: Sendable {
    /// Whether the reader is registered and whether its own link is up.
    public enum Link: Hashable, Sendable {
        /// No reader with this identity is registered: every request is refused.
        case unknown
        /// The reader is registered but its link is down (or never came up); the epoch of the
        /// last link, 0 if none.
        case offline(LinkEpoch)
        /// The reader's link is up.
        case online(LinkEpoch)
    }

    /// The reader this machine arbitrates.
    public let reader: ReaderID
    /// The reader's link state.
    public internal(set) var link: Link
    /// The session owning the reader, if any. Never set while the reader is offline or unknown.
    public internal(set) var owner: ReaderOwner?
    /// The fencing token: increases on every change of owner, never decreases.
    public internal(set) var generation: OwnershipGeneration
    /// The transaction command in progress. When set, it was started by ``owner``.
    public internal(set) var commandInProgress: CommandInProgress?

    /// A machine for a reader in a known state (for example loaded from the store).
    public init(
        reader: ReaderID,
        link: Link,
        owner: ReaderOwner? = nil,
        generation: OwnershipGeneration = .initial,
        commandInProgress: CommandInProgress? = nil
    ) {
        self.reader = reader
        self.link = link
        self.generation = generation
        // Keep the invariants even if a caller hands in an impossible combination.
        if case .online = link {
            self.owner = owner
            if let command = commandInProgress, command.session == owner?.session, command.command.marksReaderInUse {
                self.commandInProgress = command
            } else {
                self.commandInProgress = nil
            }
        } else {
            self.owner = nil
            self.commandInProgress = nil
        }
    }

    /// Whether the reader is "in use" for `session`: a transaction command started by another
    /// session is in progress.
    public func isInUse(for session: SessionID) -> Bool {
        guard let command = commandInProgress else { return false }
        return command.session != session
    }

    /// Whether the reader is mid-transaction at all.
    public var isMidTransaction: Bool { commandInProgress != nil }

    /// The current link epoch, if the reader is registered.
    public var epoch: LinkEpoch? {
        switch link {
        case .unknown: nil
        case .offline(let epoch), .online(let epoch): epoch
        }
    }

    // MARK: shared transitions

    /// Ends the current ownership, if any: bumps the generation and builds the actions.
    mutating func endOwnership(
        reason: OwnershipHistoryReason,
        displacement: DisplacementReason?,
        notifyOwner: Bool
    ) -> ReleaseResult {
        guard let previous = owner else { return .unchanged(nil) }
        generation = generation.next
        owner = nil
        var actions: [OwnershipAction] = []
        if let command = commandInProgress {
            actions.append(.cancelCommand(command))
            commandInProgress = nil
        }
        if notifyOwner, let displacement {
            actions.append(.notifyDisplaced(session: previous.session, reason: displacement, takenBy: nil))
            actions.append(.failNextCommand(session: previous.session, refusal: refusal(for: displacement)))
        }
        actions.append(
            .recordHistory(
                OwnershipHistoryEvent(reader: reader, from: previous, to: nil, generation: generation, reason: reason)
            )
        )
        return .released(previous, generation: generation, actions: actions)
    }

    func refusal(for displacement: DisplacementReason) -> OwnershipRefusal {
        switch displacement {
        case .readerOffline: .readerOffline
        case .connectedToAnotherSession, .sessionExpired, .adminReleased: .connectedToAnotherSession
        }
    }
}
