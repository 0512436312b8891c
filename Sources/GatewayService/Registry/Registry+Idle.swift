import GatewayCore
import GatewayRegistry
import Synchronization

/// A drain waits for the last relayed command to end: the latch is set when none is
/// pending any more, by whichever event removed the last one (no polling).
extension Registry {
    /// Sets `latch` once no relayed command is pending here (at once when none is).
    func whenNoCommandsPending(_ latch: Latch) {
        let idle = state.withLock { state -> Bool in
            if state.machine.pendingCommandCount == 0 { return true }
            state.idleWaiters.append(latch)
            idleWatched.store(true, ordering: .releasing)
            return false
        }
        if idle { latch.set() }
    }

    /// After an event that may have ended commands: wakes the drains waiting for none to be
    /// pending. One atomic load when nobody waits (the relay path's cost).
    func commandsMayHaveEnded() {
        guard idleWatched.load(ordering: .acquiring) else { return }
        let woken = state.withLock { state -> [Latch] in
            guard state.machine.pendingCommandCount == 0 else { return [] }
            defer { state.idleWaiters = [] }
            idleWatched.store(false, ordering: .releasing)
            return state.idleWaiters
        }
        for latch in woken { latch.set() }
    }
}
