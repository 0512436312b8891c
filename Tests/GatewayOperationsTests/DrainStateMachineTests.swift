import Testing
@testable import GatewayOperations

@Suite("Drain state machine")
struct DrainStateMachineTests {
    let configuration = DrainConfiguration(loadBalancerWindow: .seconds(5), inFlightDeadline: .seconds(20))
    let start = ContinuousClock.now

    @Test("SIGTERM with commands in flight: not ready, window, goaway, last command done, exit 0")
    func drainWithInFlightCommands() {
        var machine = DrainStateMachine(configuration: configuration)
        #expect(machine.isReady)
        #expect(machine.terminationSignalReceived(now: start) == .stopBeingReady(wakeAt: start + .seconds(5)))
        #expect(!machine.isReady)
        #expect(machine.acceptsNewWork)
        #expect(machine.inFlightChanged(to: 0) == .none, "nothing exits before goaway")
        #expect(machine.timerFired(now: start + .seconds(1), inFlight: 2) == .wait(wakeAt: start + .seconds(5)))
        #expect(machine.timerFired(now: start + .seconds(5), inFlight: 2) == .sendGoAway(wakeAt: start + .seconds(25)))
        #expect(!machine.acceptsNewWork)
        #expect(machine.inFlightChanged(to: 1) == .none)
        #expect(machine.inFlightChanged(to: 0) == .releaseClaimsAndExit(status: 0))
        #expect(machine.state == .finished)
        #expect(machine.timerFired(now: start + .seconds(25), inFlight: 0) == .none)
    }

    @Test("nothing in flight after the window: goaway and exit at once")
    func drainIdle() {
        var machine = DrainStateMachine(configuration: configuration)
        _ = machine.terminationSignalReceived(now: start)
        #expect(machine.timerFired(now: start + .seconds(5), inFlight: 0) == .sendGoAwayAndExit(status: 0))
        #expect(machine.state == .finished)
    }

    @Test("in-flight deadline passes: exit 0 and report what was abandoned")
    func deadlinePasses() {
        var machine = DrainStateMachine(configuration: configuration)
        _ = machine.terminationSignalReceived(now: start)
        _ = machine.timerFired(now: start + .seconds(5), inFlight: 3)
        #expect(machine.timerFired(now: start + .seconds(24), inFlight: 3) == .wait(wakeAt: start + .seconds(25)))
        #expect(machine.timerFired(now: start + .seconds(25), inFlight: 3) == .releaseClaimsAndExit(status: 0, abandoned: 3))
    }

    @Test("a second signal during a drain exits now; later signals do nothing")
    func secondSignal() {
        var machine = DrainStateMachine(configuration: configuration)
        _ = machine.terminationSignalReceived(now: start)
        #expect(machine.terminationSignalReceived(now: start + .seconds(1)) == .exitNow(status: 1))
        #expect(machine.terminationSignalReceived(now: start + .seconds(2)) == .none)
    }

    @Test("timers and in-flight changes while serving do nothing")
    func servingIgnoresTimers() {
        var machine = DrainStateMachine(configuration: configuration)
        #expect(machine.timerFired(now: start, inFlight: 4) == .none)
        #expect(machine.inFlightChanged(to: 0) == .none)
        #expect(machine.isReady)
    }
}
