import GatewayClient
@testable import GatewayClientCore
import GatewayWire
import Testing

/// What a TerminalClient holds of its Tap to Pay reader, without I/O: a stand-in link, events
/// in, what to stop, attach or report out.
@Suite("Tap to Pay client machine")
struct TapToPayClientStateMachineTests {
    /// Stands in for the reader's link: the machine only holds and compares it.
    final class Link: Sendable {}

    typealias Machine = TapToPayClientStateMachine<Link>

    static func request(autoReconnect: Bool = true, window: Duration = .seconds(60)) -> TapToPayConnectionRequest {
        TapToPayConnectionRequest(
            device: .simulatedSupported,
            configuration: TapToPayConnectionConfiguration(locationID: "tml_1", autoReconnectOnUnexpectedDisconnect: autoReconnect, reconnectTimeout: window),
            options: TapToPayReader.Options(), serialNumber: "TTP-1", credential: "rcred_1"
        )
    }

    /// A session with the reader connected at generation 1 through `link`.
    static func connected(_ link: Link, autoReconnect: Bool = true) -> Machine {
        var machine = Machine()
        machine.sessionOpened()
        #expect(machine.readerAttached(link) == nil)
        machine.connected(request(autoReconnect: autoReconnect), readerID: "tmr_1", generation: 1)
        return machine
    }

    static let now = ContinuousClock.now
    static let deadline = now + .seconds(60)

    static func failure(_ step: Machine.ReconnectStep) -> Machine.ReconnectFailure? {
        guard case .fail(let failure) = step else { return nil }
        return failure
    }

    static func waits(_ step: Machine.ReconnectStep) -> Bool {
        guard case .wait = step else { return false }
        return true
    }

    @Test("backgrounded with auto-reconnect: the link stops, the reconnect waits for the foreground, then attaches after the old link's ending")
    func backgroundThenForeground() {
        let link = Link()
        var machine = Self.connected(link)
        let lost = machine.enteredBackground()
        #expect(lost.reader === link)
        #expect(lost.lost == .startReconnect(readerID: "tmr_1", reason: .appInBackground))
        #expect(machine.reader == nil)
        #expect(Self.waits(machine.step(now: Self.now, deadline: Self.deadline)))
        machine.linkEnding(nil)
        machine.enteredForeground()
        guard case .attach(let request, _) = machine.step(now: Self.now, deadline: Self.deadline) else {
            Issue.record("the reconnect did not attach in the foreground")
            return
        }
        #expect(request.credential == "rcred_1")
        let fresh = Link()
        #expect(machine.reconnectAttached(fresh, generation: 1) == [.reconnectSucceeded(readerID: "tmr_1")])
        #expect(machine.reader === fresh)
    }

    @Test("backgrounded without auto-reconnect: the link ends, nothing reconnects")
    func backgroundWithoutAutoReconnect() {
        var machine = Self.connected(Link(), autoReconnect: false)
        #expect(machine.enteredBackground().lost == .none)
        #expect(Self.failure(machine.step(now: Self.now, deadline: Self.deadline)) == .letGo)
        // No reader attached: nothing to stop, nothing lost.
        var empty = Machine()
        let lost = empty.enteredBackground()
        #expect(lost.reader == nil)
        #expect(lost.lost == .none)
    }

    @Test("a waiting reconnect gives up, in this order: let go, cancelled, released by the gateway, session ended, window passed")
    func reconnectFailures() {
        var machine = Self.connected(Link())
        _ = machine.connectivityLost()
        #expect(Self.waits(machine.step(now: Self.now, deadline: Self.deadline)))
        #expect(Self.failure(machine.step(now: Self.deadline, deadline: Self.deadline)) == .windowPassed)
        machine.sessionEnded()
        #expect(Self.failure(machine.step(now: Self.now, deadline: Self.deadline)) == .sessionEnded)
        #expect(machine.gatewayDisconnected(DisconnectInfo(readerID: "tmr_1", reason: .readerLost, generation: 1, message: "gone")) == .hold)
        #expect(Self.failure(machine.step(now: Self.now, deadline: Self.deadline)) == .releasedByGateway)
        machine.cancelRequested()
        #expect(Self.failure(machine.step(now: Self.now, deadline: Self.deadline)) == .cancelled)
        _ = machine.closing()
        #expect(Self.failure(machine.step(now: Self.now, deadline: Self.deadline)) == .letGo)
    }

    @Test("a connection drop with auto-reconnect off keeps the reader to let go once the session is back, once")
    func connectivityLostWithoutAutoReconnect() {
        let link = Link()
        var machine = Self.connected(link, autoReconnect: false)
        let lost = machine.connectivityLost()
        #expect(lost.reader === link)
        #expect(lost.lost == .none)
        let kept = machine.takeLostWithoutReconnect()
        #expect(kept?.readerID == "tmr_1")
        #expect(kept?.generation == 1)
        #expect(machine.takeLostWithoutReconnect() == nil)
        guard case .disconnected(let info) = machine.lostWithoutReconnectReleased(readerID: "tmr_1", generation: 1) else {
            Issue.record("no disconnected for the reader let go")
            return
        }
        #expect(info.generation == 1)
        // The gateway's own report of that ownership's end, arriving later, is dropped.
        #expect(machine.gatewayDisconnected(DisconnectInfo(readerID: "tmr_1", reason: .readerLost, generation: 1, message: "gone")) == .drop)
    }

    @Test("a connection drop waits for the connection; the reader attached meanwhile is not replaced by one let go")
    func connectivityRestored() {
        var machine = Self.connected(Link())
        _ = machine.connectivityLost()
        #expect(Self.waits(machine.step(now: Self.now, deadline: Self.deadline)))
        machine.connectivityRestored()
        guard case .attach = machine.step(now: Self.now, deadline: Self.deadline) else {
            Issue.record("the reconnect did not attach once the connection was back")
            return
        }
        machine.cancelRequested()
        // Cancelled meanwhile: the new link must end again; nothing succeeds.
        #expect(machine.reconnectAttached(Link(), generation: 1).isEmpty)
        #expect(machine.reader == nil)
    }

    @Test("a failed reconnect reports reconnectFailed then disconnected, and lets the reader go only while the session holds it")
    func reconnectFailedRelease() {
        var machine = Self.connected(Link())
        _ = machine.enteredBackground()
        let failed = machine.reconnectFailed(Machine.ReconnectFailure.windowPassed.error)
        #expect(failed.releaseReader)
        #expect(failed.events.count == 2)
        guard case .reconnectFailed(let readerID, let error) = failed.events.first else {
            Issue.record("reconnectFailed not reported first: \(failed.events)")
            return
        }
        #expect(readerID == "tmr_1")
        #expect(error.code == .readerOffline && error.underlying.reason == .readerOffline)

        var ended = Self.connected(Link())
        _ = ended.enteredBackground()
        ended.sessionEnded()
        let endedFailure = ended.reconnectFailed(Machine.ReconnectFailure.sessionEnded.error)
        #expect(!endedFailure.releaseReader)

        var released = Self.connected(Link())
        _ = released.enteredBackground()
        _ = released.gatewayDisconnected(DisconnectInfo(readerID: "tmr_1", reason: .readerLost, generation: 1, message: "gone"))
        let releasedFailure = released.reconnectFailed(Machine.ReconnectFailure.releasedByGateway.error)
        #expect(!releasedFailure.releaseReader)
    }

    @Test("a connect that failed after the attach forgets its link, not a newer one; disconnect hands the link to stop")
    func attachAndRelease() {
        var machine = Machine()
        machine.sessionOpened()
        let first = Link()
        let second = Link()
        #expect(machine.readerAttached(first) == nil)
        #expect(machine.readerAttached(second) === first)
        machine.connectFailed(first)
        #expect(machine.reader === second)
        #expect(machine.released() === second)
        #expect(machine.reader == nil)
    }

    @Test("a waiting reconnect is kept until the next change, and only when it must wait")
    func waiters() async {
        var machine = Self.connected(Link())
        _ = machine.enteredBackground()
        let step = await withCheckedContinuation { (waiter: CheckedContinuation<Machine.ReconnectStep, Never>) in
            #expect(machine.reconnectStep(now: Self.now, deadline: Self.deadline, waiter: waiter) == nil)
            machine.enteredForeground()
            let woken = machine.takeWaiters()
            #expect(woken.count == 1)
            for waiter in woken { waiter.resume(returning: .wait) }
        }
        #expect(Self.waits(step))
        #expect(machine.takeWaiters().isEmpty)
        let now = await withCheckedContinuation { (waiter: CheckedContinuation<Machine.ReconnectStep, Never>) in
            // In the foreground now: the step is returned, the waiter is not kept.
            if let step = machine.reconnectStep(now: Self.now, deadline: Self.deadline, waiter: waiter) { waiter.resume(returning: step) }
        }
        guard case .attach = now else {
            Issue.record("the reconnect did not attach: \(now)")
            return
        }
        #expect(machine.takeWaiters().isEmpty)
    }
}
