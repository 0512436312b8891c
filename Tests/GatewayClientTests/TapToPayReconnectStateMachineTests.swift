import GatewayClient
@testable import GatewayClientCore
import GatewayWire
import Testing

/// Auto-reconnect of a Tap to Pay reader, without I/O.
@Suite("Tap to Pay reconnect machine")
struct TapToPayReconnectStateMachineTests {
    static func lost(_ reader: String, generation: UInt64) -> DisconnectInfo {
        var message = ReaderGatewayV1.ReaderDisconnected()
        message.readerID = reader
        message.reason = .readerLost
        message.generation = generation
        return DisconnectInfo(message)
    }

    @Test("a lost link starts a reconnect; the gateway's disconnect is held, and dropped when the reconnect succeeds")
    func reconnectSucceeds() {
        var machine = TapToPayReconnectStateMachine()
        machine.connected(readerID: "tmr_1", generation: 1, autoReconnect: true)
        #expect(machine.linkLost(.appInBackground) == .startReconnect(readerID: "tmr_1", reason: .appInBackground))
        #expect(machine.gatewayDisconnected(Self.lost("tmr_1", generation: 1)) == .hold)
        #expect(machine.reconnectSucceeded(generation: 2, autoReconnect: true) == [.reconnectSucceeded(readerID: "tmr_1")])
        #expect(machine.state == .connected(readerID: "tmr_1", generation: 2, autoReconnect: true))
    }

    @Test("a disconnect of the older generation arriving after the reconnect succeeded is dropped; a newer one is delivered")
    func lateDisconnectDropped() {
        var machine = TapToPayReconnectStateMachine()
        machine.connected(readerID: "tmr_1", generation: 1, autoReconnect: true)
        _ = machine.linkLost(.unknown)
        _ = machine.reconnectSucceeded(generation: 2, autoReconnect: true)
        #expect(machine.gatewayDisconnected(Self.lost("tmr_1", generation: 1)) == .drop)
        #expect(machine.gatewayDisconnected(Self.lost("tmr_1", generation: 2)) == .deliver)
        #expect(machine.state == .idle)
    }

    @Test("a failed or cancelled reconnect reports reconnectFailed, then the held disconnect (or one made here)")
    func reconnectFails() {
        let failure = RPCError(code: .cancelled, reason: .commandCanceled, message: "the reconnect was cancelled")
        var machine = TapToPayReconnectStateMachine()
        machine.connected(readerID: "tmr_1", generation: 3, autoReconnect: true)
        _ = machine.linkLost(.unknown)
        let held = Self.lost("tmr_1", generation: 3)
        #expect(machine.gatewayDisconnected(held) == .hold)
        #expect(machine.reconnectFailed(failure) == [.reconnectFailed(readerID: "tmr_1", TerminalError(failure)), .disconnected(held)])
        #expect(machine.state == .idle)
        // The gateway's report of the same loss, arriving later, is not reported twice.
        #expect(machine.gatewayDisconnected(Self.lost("tmr_1", generation: 3)) == .drop)

        machine.connected(readerID: "tmr_1", generation: 4, autoReconnect: true)
        _ = machine.linkLost(.unknown)
        let events = machine.reconnectFailed(failure)
        #expect(events.count == 2)
        guard case .disconnected(let made)? = events.last else {
            Issue.record("no disconnected after reconnectFailed: \(events)")
            return
        }
        #expect(made.readerID == "tmr_1" && made.reason == .readerLost && made.generation == 4)
        #expect(machine.gatewayDisconnected(Self.lost("tmr_1", generation: 4)) == .drop)
        #expect(machine.gatewayDisconnected(Self.lost("tmr_1", generation: 5)) == .deliver)
    }

    @Test("a running reconnect knows when the gateway released the reader meanwhile (its disconnect is held)")
    func releasedMeanwhile() {
        var machine = TapToPayReconnectStateMachine()
        #expect(machine.reconnecting == nil)
        machine.connected(readerID: "tmr_1", generation: 1, autoReconnect: true)
        #expect(machine.reconnecting == nil)
        _ = machine.linkLost(.appInBackground)
        #expect(machine.reconnecting?.readerID == "tmr_1")
        #expect(machine.reconnecting?.released == false)
        // Another reader's disconnect is not this reconnect's.
        #expect(machine.gatewayDisconnected(Self.lost("tmr_2", generation: 1)) == .deliver)
        #expect(machine.reconnecting?.released == false)
        #expect(machine.gatewayDisconnected(Self.lost("tmr_1", generation: 1)) == .hold)
        #expect(machine.reconnecting?.released == true)
        // A second loss while reconnecting starts nothing more.
        #expect(machine.linkLost(.unknown) == .none)
    }

    @Test("a reader lost with the connection while auto-reconnect is off is reported once, by the client")
    func lostWithoutReconnect() {
        var machine = TapToPayReconnectStateMachine()
        machine.connected(readerID: "tmr_1", generation: 7, autoReconnect: false)
        #expect(machine.linkLost(.unknown) == .none)
        guard case .disconnected(let made) = machine.lostWithoutReconnect(readerID: "tmr_1", generation: 7) else {
            Issue.record("lostWithoutReconnect did not report a disconnect")
            return
        }
        #expect(made.readerID == "tmr_1" && made.reason == .readerLost && made.generation == 7)
        #expect(machine.state == .idle)
        #expect(machine.gatewayDisconnected(Self.lost("tmr_1", generation: 7)) == .drop)
        #expect(machine.gatewayDisconnected(Self.lost("tmr_1", generation: 8)) == .deliver)
    }

    @Test("without auto-reconnect a lost link starts nothing and the gateway's disconnect passes through")
    func manual() {
        var machine = TapToPayReconnectStateMachine()
        machine.connected(readerID: "tmr_1", generation: 1, autoReconnect: false)
        #expect(machine.linkLost(.appInBackground) == .none)
        #expect(machine.gatewayDisconnected(Self.lost("tmr_1", generation: 1)) == .deliver)
    }

    @Test("released or idle: nothing to reconnect, late results report nothing")
    func releasedReportsNothing() {
        var machine = TapToPayReconnectStateMachine()
        #expect(machine.linkLost(.appInBackground) == .none)
        machine.connected(readerID: "tmr_1", generation: 1, autoReconnect: true)
        _ = machine.linkLost(.unknown)
        machine.released()
        #expect(machine.reconnectSucceeded(generation: 2, autoReconnect: true).isEmpty)
        #expect(machine.reconnectFailed(RPCError(code: .cancelled, reason: .commandCanceled, message: "x")).isEmpty)
    }
}
