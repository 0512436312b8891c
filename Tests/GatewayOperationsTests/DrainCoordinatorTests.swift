import GatewayCore
import GatewayTestKit
import Synchronization
import Testing
@testable import GatewayOperations

/// Records the hooks' calls in order, over commands in flight kept as the service keeps them.
final class DrainRecorder: Sendable {
    private let events = Mutex<[String]>([])
    let inFlight: InFlightCommands
    /// Set when goaway was sent.
    let goAwaySent = Latch()

    init(inFlight: Int = 0) { self.inFlight = InFlightCommands(inFlight) }

    var log: [String] { events.withLock { $0 } }
    func record(_ event: String) { events.withLock { $0.append(event) } }

    var hooks: DrainHooks {
        DrainHooks(
            stopBeingReady: { self.record("not ready") },
            sendGoAway: {
                self.record("goaway")
                self.goAwaySent.set()
            },
            inFlightCommands: { self.inFlight.read() },
            whenNothingInFlight: { self.inFlight.whenNothingInFlight($0) },
            releaseClaims: { self.record("release claims") }
        )
    }
}

/// Commands in flight: a count, how often it was read, and the latch of a drain waiting for
/// the last one to end (set by the ``finish()`` that ends it).
final class InFlightCommands: Sendable {
    private struct State {
        var count: Int
        var reads = 0
        var waiting: Latch?
    }
    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(count: count)) }

    var reads: Int { state.withLock { $0.reads } }

    func read() -> Int {
        state.withLock { state in
            state.reads += 1
            return state.count
        }
    }

    func whenNothingInFlight(_ latch: Latch) {
        let now = state.withLock { state -> Bool in
            if state.count == 0 { return true }
            state.waiting = latch
            return false
        }
        if now { latch.set() }
    }

    /// One command ends.
    func finish() {
        let latch = state.withLock { state -> Latch? in
            state.count -= 1
            guard state.count == 0 else { return nil }
            defer { state.waiting = nil }
            return state.waiting
        }
        latch?.set()
    }
}

@Suite("Drain coordinator against the clock")
struct DrainCoordinatorTests {
    @Test("idle replica: not ready, window, goaway, release, exit 0")
    func idle() async {
        let recorder = DrainRecorder()
        let coordinator = DrainCoordinator(configuration: .init(loadBalancerWindow: .milliseconds(100), inFlightDeadline: .seconds(10)))
        let start = ContinuousClock.now
        let outcome = await coordinator.drain(hooks: recorder.hooks)
        #expect(outcome == .init(status: 0, abandonedCommands: 0))
        #expect(recorder.log == ["not ready", "goaway", "release claims"])
        #expect(ContinuousClock.now - start >= .milliseconds(100), "the load balancer window is honoured")
    }

    @Test("commands in flight: the drain ends as the last one ends, and the count is read once, not polled")
    func inFlightFinish() async {
        let recorder = DrainRecorder(inFlight: 2)
        // A deadline far beyond the test: only the end of the last command ends the drain.
        let coordinator = DrainCoordinator(configuration: .init(loadBalancerWindow: .zero, inFlightDeadline: .seconds(600)))
        let drained = Task { await coordinator.drain(hooks: recorder.hooks) }
        #expect(await recorder.goAwaySent.wait(atMost: outcomeDeadline))
        recorder.inFlight.finish()
        #expect(!recorder.log.contains("release claims"), "the drain ended with a command still in flight")
        recorder.inFlight.finish()
        let outcome = await drained.value
        #expect(outcome == .init(status: 0, abandonedCommands: 0, endedAtDeadline: false))
        #expect(recorder.log == ["not ready", "goaway", "release claims"])
        // Read when the window ended; after that the drain waited for the latch alone.
        #expect(recorder.inFlight.reads == 1)
    }

    @Test("the deadline passes with commands in flight: exit 0 and count them")
    func deadline() async {
        let recorder = DrainRecorder(inFlight: 3)
        let coordinator = DrainCoordinator(configuration: .init(loadBalancerWindow: .zero, inFlightDeadline: .milliseconds(100)))
        let start = ContinuousClock.now
        let outcome = await coordinator.drain(hooks: recorder.hooks)
        #expect(outcome == .init(status: 0, abandonedCommands: 3, endedAtDeadline: true))
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        #expect(recorder.log == ["not ready", "goaway", "release claims"])
        // At the window's end and at the deadline.
        #expect(recorder.inFlight.reads == 2)
    }

    @Test("nothing in flight when the window ends: goaway and release at once, the latch never asked for")
    func nothingInFlightAtWindowEnd() async {
        let recorder = DrainRecorder(inFlight: 0)
        let coordinator = DrainCoordinator(configuration: .init(loadBalancerWindow: .zero, inFlightDeadline: .seconds(600)))
        let outcome = await coordinator.drain(hooks: recorder.hooks)
        #expect(outcome == .init(status: 0, abandonedCommands: 0))
        #expect(recorder.log == ["not ready", "goaway", "release claims"])
        #expect(recorder.inFlight.reads == 1)
    }
}
