/// The discovery rules of one SDK session, as Stripe Terminal states them for
/// internet readers.
///
/// - A discovery answers once, with every reader registered at the location.
/// - It stays running after it answered: a second discovery fails until the
///   first is cancelled (or a connect ends it).
/// - A connect must name a reader object from the session's most recent
///   discovery; one from an older discovery is stale.
/// - Discoveries are rate limited per session, so a flood from one lane
///   cannot load the store for everyone else.
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
        /// No discovery is running.
        case idle
        /// A discovery started and has not been cancelled or ended by a connect.
        case running(DiscoveryID)
    }

    public private(set) var state: State = .idle
    /// The most recent discovery, running or not; nil before the first.
    public private(set) var latest: DiscoveryID?
    private var bucket: TokenBucket

    /// - Parameters:
    ///   - burst: discoveries allowed back to back.
    ///   - perSecond: the sustained rate after the burst.
    public init(burst: Int = 5, perSecond: Double = 1) {
        bucket = TokenBucket(capacity: burst, refillPerSecond: perSecond)
    }

    // MARK: events

    /// The result of ``startDiscovery(at:)``.
    public enum StartResult: Sendable, Hashable {
        /// Run this discovery and answer once with the readers found.
        case start(DiscoveryID)
        /// A discovery is already running; cancel it first.
        case refuseAlreadyInProgress(running: DiscoveryID)
        /// Too many discoveries; try again after the given time.
        case refuseRateLimited(retryAfter: Duration)
    }

    public mutating func startDiscovery(at now: ContinuousClock.Instant) -> StartResult {
        if case .running(let running) = state {
            return .refuseAlreadyInProgress(running: running)
        }
        if case .denied(let retryAfter) = bucket.take(at: now) {
            return .refuseRateLimited(retryAfter: retryAfter)
        }
        let id = DiscoveryID((latest?.value ?? 0) + 1)
        latest = id
        state = .running(id)
        return .start(id)
    }

    /// The result of ``cancelDiscovery()``.
    public enum CancelResult: Sendable, Hashable {
        /// The running discovery ended.
        case cancelled(DiscoveryID)
        /// Nothing was running: cancelling is idempotent, report success.
        case nothingRunning
    }

    public mutating func cancelDiscovery() -> CancelResult {
        guard case .running(let id) = state else { return .nothingRunning }
        state = .idle
        return .cancelled(id)
    }

    /// The result of ``checkConnect(readerFrom:)``.
    public enum ConnectCheck: Sendable, Hashable {
        /// The reader object comes from the latest discovery.
        case fresh
        /// The reader object comes from an older discovery than `latest`.
        case stale(latest: DiscoveryID)
        /// The session never discovered; discover first.
        case noDiscovery
        /// The discovery id is newer than any this session started: the
        /// client sent a made-up id.
        case unknownDiscovery
    }

    /// Whether a connect that names a reader from `discovery` may go on.
    public func checkConnect(readerFrom discovery: DiscoveryID) -> ConnectCheck {
        guard let latest else { return .noDiscovery }
        if discovery == latest { return .fresh }
        return discovery < latest ? .stale(latest: latest) : .unknownDiscovery
    }

    /// A connect succeeded: like Stripe's SDK, connecting ends the discovery.
    public mutating func connected() {
        state = .idle
    }
}
