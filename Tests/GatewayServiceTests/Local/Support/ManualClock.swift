@testable import GatewayService
import Synchronization

/// A clock a test moves by hand: nothing waits for time, a test says how much passed.
/// Monotonic and wall time move together.
final class ManualClock: ServiceClock {
    private let origin = ContinuousClock.now
    private let elapsed = Mutex<Duration>(.zero)
    /// The wall clock when the test started (2026-01-01T00:00:00Z).
    let startUnixMs: Int64 = 1_767_225_600_000

    var now: ContinuousClock.Instant { origin + elapsed.withLock { $0 } }

    var nowUnixMs: Int64 {
        let passed = elapsed.withLock { $0 }
        return startUnixMs + passed.components.seconds * 1000 + passed.components.attoseconds / 1_000_000_000_000_000
    }

    /// Time passes.
    func advance(by duration: Duration) {
        elapsed.withLock { $0 += duration }
    }
}
