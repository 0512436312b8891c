import Synchronization

/// Since when this replica's node heartbeat has held without a failure (nil: it failed, the
/// replica was paused past the lease, or it was reaped and is rejoining). Written by the node
/// heartbeat loop, read by the membership sweeps, which reap others only after a whole lease
/// of health.
///
/// One ``State`` value behind one lock: each method feeds it an event through ``feed(_:)``.
final class NodeHealth: Sendable {
    /// The heartbeat's health as a value: the events it hears, and what it answers.
    struct State: Sendable {
        enum Event: Sendable {
            /// The heartbeat held at `now`.
            case held(now: ContinuousClock.Instant)
            /// The heartbeat failed or cannot be trusted.
            case lost
            /// Healthy without a break for at least `duration`, at `now` (nil: healthy at all).
            case asked(for: Duration?, now: ContinuousClock.Instant)
        }

        private(set) var healthySince: ContinuousClock.Instant?

        init(healthySince: ContinuousClock.Instant?) { self.healthySince = healthySince }

        /// Feeds one event: whether the replica is healthy (for as long as asked) afterwards.
        mutating func handle(_ event: Event) -> Bool {
            switch event {
            case .held(let now): if healthySince == nil { healthySince = now }
            case .lost: healthySince = nil
            case .asked(let duration?, let now): return healthySince.map { now - $0 >= duration } ?? false
            case .asked(nil, _): break
            }
            return healthySince != nil
        }
    }

    private let clock: any ServiceClock
    private let state: Mutex<State>

    init(clock: any ServiceClock) {
        self.clock = clock
        state = Mutex(State(healthySince: clock.now))
    }

    /// The heartbeat held: healthy from now on unless it was already.
    func held() {
        feed(.held(now: clock.now))
    }

    /// The heartbeat failed or cannot be trusted.
    func lost() {
        feed(.lost)
    }

    var isHealthy: Bool { feed(.asked(for: nil, now: clock.now)) }

    /// Healthy without a break for at least `duration`.
    func healthy(for duration: Duration) -> Bool {
        feed(.asked(for: duration, now: clock.now))
    }

    @discardableResult
    private func feed(_ event: State.Event) -> Bool {
        state.withLock { $0.handle(event) }
    }
}
