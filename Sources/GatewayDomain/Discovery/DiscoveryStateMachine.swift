/// The discovery rules of one SDK session, as Stripe Terminal's SDKs apply them to
/// internet readers since iOS SDK 4.0.0.
///
/// - A discovery answers once, with every reader registered at the location, and is
///   complete when it answers.
/// - A new discovery supersedes the previous one: a discovery still waiting for its
///   answer is cancelled, and readers from any older discovery become stale.
/// - `CancelDiscovery` cancels a discovery still waiting for its answer; a discovery
///   that answered is complete and has nothing left to cancel.
/// - A connect must name a reader object from the session's most recent discovery,
///   and that discovery must have answered.
/// - Discoveries are rate limited per session, so a flood from one lane cannot load
///   the store for everyone else.
///
/// ```
///            start(n)                       answered(n)
///   idle ─────────────────▶ running(n) ─────────────────────▶ idle (answered = n)
///    ▲                      │    │
///    │    cancelDiscovery   │    │ start(n+1): n is superseded
///    └──────────────────────┘    └──────────▶ running(n+1)
/// ```
public struct DiscoveryStateMachine: Sendable {
    /// Identifies one discovery of one session; increases with every discovery.
    public struct DiscoveryID: Hashable, Comparable, Sendable, CustomStringConvertible {
        public let value: UInt64
        public init(_ value: UInt64) { self.value = value }
        public static func < (lhs: DiscoveryID, rhs: DiscoveryID) -> Bool { lhs.value < rhs.value }
        public var description: String { "discovery-\(value)" }
    }

    /// Where the session's discovery stands.
    public enum State: Sendable, Hashable {
        /// No discovery is waiting for its answer.
        case idle
        /// A discovery started and has not answered, been cancelled or been superseded.
        case running(DiscoveryID)
    }

    public private(set) var state: State = .idle
    /// The most recent discovery, whatever became of it; nil before the first.
    public private(set) var latest: DiscoveryID?
    /// The most recent discovery that answered; nil before the first answer.
    public private(set) var answered: DiscoveryID?
    private var bucket: TokenBucket

    /// - Parameters:
    ///   - burst: discoveries allowed back to back.
    ///   - perSecond: the sustained rate after the burst.
    public init(burst: Int = 5, perSecond: Double = 1) {
        bucket = TokenBucket(capacity: burst, refillPerSecond: perSecond)
    }

    /// The discovery state of a session taken over from another replica: `answered` is the
    /// latest discovery that answered there (kept with the session's row), which stays the
    /// latest here, so its readers remain connectable and older ones stay stale. A discovery
    /// that had not answered when the other replica died is forgotten with it (its caller
    /// got no readers from it); the next discovery here is numbered after `answered`.
    ///
    /// - Parameters:
    ///   - answered: the latest discovery that answered; nil when the session never discovered.
    ///   - burst: discoveries allowed back to back.
    ///   - perSecond: the sustained rate after the burst.
    public init(resumingAfter answered: DiscoveryID?, burst: Int = 5, perSecond: Double = 1) {
        self.init(burst: burst, perSecond: perSecond)
        latest = answered
        self.answered = answered
    }

    // MARK: events

    /// The result of ``startDiscovery(at:)``.
    public enum StartResult: Sendable, Hashable {
        /// Run this discovery and answer once with the readers found. `superseding` is the
        /// discovery that was still waiting for its answer: it is cancelled, end its call.
        case start(DiscoveryID, superseding: DiscoveryID?)
        /// Too many discoveries; try again after the given time. Nothing changed.
        case refuseRateLimited(retryAfter: Duration)
    }

    /// A new discovery: it supersedes the previous one, unless the rate limit refuses it.
    public mutating func startDiscovery(at now: ContinuousClock.Instant) -> StartResult {
        if case .denied(let retryAfter) = bucket.take(at: now) {
            return .refuseRateLimited(retryAfter: retryAfter)
        }
        var superseded: DiscoveryID?
        if case .running(let running) = state { superseded = running }
        let id = DiscoveryID((latest?.value ?? 0) + 1)
        latest = id
        state = .running(id)
        return .start(id, superseding: superseded)
    }

    /// The result of ``answerReady(_:)``.
    public enum AnswerResult: Sendable, Hashable {
        /// The discovery is still the session's current one: answer with its readers.
        case answer
        /// A newer discovery superseded it while it waited: end its call as cancelled.
        case superseded(by: DiscoveryID)
        /// CancelDiscovery cancelled it while it waited: end its call as cancelled.
        case cancelled
    }

    /// Discovery `id` has its readers: whether it may answer with them. Answering
    /// completes it.
    public mutating func answerReady(_ id: DiscoveryID) -> AnswerResult {
        if state == .running(id) {
            state = .idle
            answered = id
            return .answer
        }
        if let latest, latest > id { return .superseded(by: latest) }
        return .cancelled
    }

    /// Discovery `id` could not find its readers (the store failed): it ends unanswered.
    public mutating func abandon(_ id: DiscoveryID) {
        if state == .running(id) { state = .idle }
    }

    /// The result of ``cancelDiscovery(_:)``.
    public enum CancelResult: Sendable, Hashable {
        /// The discovery waiting for its answer is cancelled: end its call as cancelled.
        case cancelled(DiscoveryID)
        /// No discovery (or not the one named) is waiting for its answer: cancelling is
        /// idempotent, report success.
        case nothingRunning
    }

    /// Cancels the discovery waiting for its answer: `id`, or whichever runs when nil.
    public mutating func cancelDiscovery(_ id: DiscoveryID? = nil) -> CancelResult {
        guard case .running(let running) = state, id == nil || id == running else { return .nothingRunning }
        state = .idle
        return .cancelled(running)
    }

    /// The result of ``checkConnect(readerFrom:)``.
    public enum ConnectCheck: Sendable, Hashable {
        /// The reader object comes from the latest discovery, which answered.
        case fresh
        /// The reader object comes from a discovery that `latest` superseded.
        case stale(latest: DiscoveryID)
        /// The latest discovery has not answered (it still waits, or was cancelled):
        /// no reader object can come from it yet.
        case notAnswered(DiscoveryID)
        /// The session never discovered; discover first.
        case noDiscovery
        /// The discovery id is newer than any this session started: the
        /// client sent a made-up id.
        case unknownDiscovery
    }

    /// Whether a connect that names a reader from `discovery` may go on.
    public func checkConnect(readerFrom discovery: DiscoveryID) -> ConnectCheck {
        guard let latest else { return .noDiscovery }
        if discovery < latest { return .stale(latest: latest) }
        if discovery > latest { return .unknownDiscovery }
        return answered == latest ? .fresh : .notAnswered(latest)
    }
}
