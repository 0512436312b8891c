import GatewayClient
import GatewayWire
import Testing

/// Auto-reconnect of a Bluetooth reader, without a radio.
@Suite("Mobile reader reconnect machine")
struct MobileReconnectStateMachineTests {
    @Test("an unexpected disconnect starts a reconnect with its reason; success reports didSucceedReconnect")
    func reconnectSucceeds() {
        for reason in [ReaderGatewayV1.MobileDisconnectReason.bluetoothSignalLost, .poweredOff, .rebootRequested, .securityReboot, .unknown] {
            var machine = MobileReconnectStateMachine()
            machine.connected(serialNumber: "WP3-1", autoReconnect: true)
            #expect(machine.linkLost(reason) == .reconnect(events: [.didStartReconnect(serialNumber: "WP3-1", reason: DisconnectReason(mobile: reason))]))
            #expect(machine.state == .reconnecting(serialNumber: "WP3-1", reason: reason, cancelled: false))
            #expect(machine.reconnectSucceeded() == .reconnected(events: [.didSucceedReconnect(serialNumber: "WP3-1")]))
            #expect(machine.state == .connected(serialNumber: "WP3-1", autoReconnect: true))
        }
    }

    @Test("a failed reconnect reports didFailReconnect then didDisconnect with the original reason, and releases")
    func reconnectFails() {
        var machine = MobileReconnectStateMachine()
        machine.connected(serialNumber: "WP3-1", autoReconnect: true)
        _ = machine.linkLost(.poweredOff)
        #expect(machine.reconnectFailed() == .failed(
            events: [.didFailReconnect(serialNumber: "WP3-1"), .didDisconnect(serialNumber: "WP3-1", reason: .poweredOff)], reason: .poweredOff
        ))
        #expect(machine.state == .idle)
        #expect(machine.reconnectFailed() == .none)
    }

    @Test("a cancelled reconnect fails, even when its attempt connected meanwhile")
    func cancelled() {
        var machine = MobileReconnectStateMachine()
        machine.connected(serialNumber: "WP3-1", autoReconnect: true)
        let beforeReconnect = machine.cancelRequested()
        #expect(beforeReconnect == false)
        _ = machine.linkLost(.bluetoothSignalLost)
        let first = machine.cancelRequested()
        let second = machine.cancelRequested()
        #expect(first == true)
        #expect(second == false)
        #expect(machine.reconnectSucceeded() == .failed(
            events: [.didFailReconnect(serialNumber: "WP3-1"), .didDisconnect(serialNumber: "WP3-1", reason: .bluetoothSignalLost)],
            reason: .bluetoothSignalLost
        ))
    }

    @Test("a requested disconnect, or any with auto-reconnect off, reports didDisconnect at once")
    func noReconnect() {
        var requested = MobileReconnectStateMachine()
        requested.connected(serialNumber: "WP3-1", autoReconnect: true)
        #expect(requested.linkLost(.disconnectRequested) == .disconnected(events: [.didDisconnect(serialNumber: "WP3-1", reason: .disconnectRequested)]))
        var manual = MobileReconnectStateMachine()
        manual.connected(serialNumber: "WP3-1", autoReconnect: false)
        #expect(manual.linkLost(.criticallyLowBattery) == .disconnected(events: [.didDisconnect(serialNumber: "WP3-1", reason: .criticallyLowBattery)]))
        #expect(manual.state == .idle)
        // Nothing connected: nothing to report.
        #expect(manual.linkLost(.poweredOff) == .none)
        var released = MobileReconnectStateMachine()
        released.connected(serialNumber: "WP3-1", autoReconnect: true)
        released.released()
        #expect(released.linkLost(.disconnectRequested) == .none)
    }
}
