import Synchronization
import Testing
@testable import GatewayOperations

/// Records the hooks' calls in order, with a settable in-flight count.
final class DrainRecorder: Sendable {
    private let events = Mutex<[String]>([])
    let inFlight = Atomic<Int>(0)

    var log: [String] { events.withLock { $0 } }
    func record(_ event: String) { events.withLock { $0.append(event) } }

    var hooks: DrainHooks {
        DrainHooks(
            stopBeingReady: { self.record("not ready") },
            sendGoAway: { self.record("goaway") },
            inFlightCommands: { self.inFlight.load(ordering: .relaxed) },
            releaseClaims: { self.record("release claims") }
        )
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

    @Test("commands in flight: the drain ends when the last one finishes, before the deadline")
    func inFlightFinish() async {
        let recorder = DrainRecorder()
        recorder.inFlight.store(2, ordering: .relaxed)
        let coordinator = DrainCoordinator(
            configuration: .init(loadBalancerWindow: .zero, inFlightDeadline: .seconds(30)),
            pollInterval: .milliseconds(5)
        )
        let drained = Task { await coordinator.drain(hooks: recorder.hooks) }
        // Wait (bounded) until goaway was sent, then finish the commands.
        let deadline = ContinuousClock.now + .seconds(10)
        while !recorder.log.contains("goaway"), ContinuousClock.now < deadline {
            await Task.yield()
        }
        #expect(recorder.log.contains("goaway"))
        recorder.inFlight.store(0, ordering: .relaxed)
        let outcome = await drained.value
        // Ended by the last command, not by the 30 s deadline.
        #expect(outcome == .init(status: 0, abandonedCommands: 0, endedAtDeadline: false))
        #expect(recorder.log == ["not ready", "goaway", "release claims"])
    }

    @Test("the deadline passes with commands in flight: exit 0 and count them")
    func deadline() async {
        let recorder = DrainRecorder()
        recorder.inFlight.store(3, ordering: .relaxed)
        let coordinator = DrainCoordinator(
            configuration: .init(loadBalancerWindow: .zero, inFlightDeadline: .milliseconds(100)),
            pollInterval: .milliseconds(5)
        )
        let start = ContinuousClock.now
        let outcome = await coordinator.drain(hooks: recorder.hooks)
        #expect(outcome == .init(status: 0, abandonedCommands: 3, endedAtDeadline: true))
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        #expect(recorder.log == ["not ready", "goaway", "release claims"])
    }
}
