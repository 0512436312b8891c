import GatewayCore
import GatewayRegistry

/// A drain waits for the last relayed command to end: the latch is set when none is
/// pending any more, by whichever event removed the last one (no polling; ``LiveRegistry/handle(_:)``
/// looks after every event, one emptiness check when nobody waits).
extension LiveRegistry {
    /// Sets `latch` once no relayed command is pending here (at once when none is).
    func whenNoCommandsPending(_ latch: Latch) {
        handle(.idleAwaited(latch))
    }
}
