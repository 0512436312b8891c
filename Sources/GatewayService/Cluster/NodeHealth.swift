import Synchronization

/// Since when this replica's node heartbeat has held without a failure (nil: it failed, the
/// replica was paused past the lease, or it was reaped and is rejoining). Written by the node
/// heartbeat loop, read by the membership sweeps, which reap others only after a whole lease
/// of health.
final class NodeHealth: Sendable {
    private let clock: any ServiceClock
    private let healthySince: Mutex<ContinuousClock.Instant?>

    init(clock: any ServiceClock) {
        self.clock = clock
        healthySince = Mutex(clock.now)
    }

    /// The heartbeat held: healthy from now on unless it was already.
    func held() {
        healthySince.withLock { since in if since == nil { since = clock.now } }
    }

    /// The heartbeat failed or cannot be trusted.
    func lost() {
        healthySince.withLock { $0 = nil }
    }

    var isHealthy: Bool { healthySince.withLock { $0 != nil } }

    /// Healthy without a break for at least `duration`.
    func healthy(for duration: Duration) -> Bool {
        healthySince.withLock { since in since.map { clock.now - $0 >= duration } ?? false }
    }
}
