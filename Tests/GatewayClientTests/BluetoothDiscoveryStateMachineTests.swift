import GatewayClient
import GatewayWire
import Testing

/// Bluetooth scan and proximity discovery, without a radio.
@Suite("Bluetooth discovery machine")
struct BluetoothDiscoveryStateMachineTests {
    static func heard(_ serial: String, _ dBm: Int, type: DeviceType = .wisePad3) -> BluetoothAdvertisement {
        BluetoothAdvertisement(serialNumber: serial, deviceType: type, signalStrength: dBm, batteryLevel: 0.8, softwareVersion: "2.4.0")
    }

    @Test("scan delivers the whole nearby list, sorted by serial, on every change and only on a change; serials, no label, no battery")
    func scanDeliversWholeList() throws {
        var machine = BluetoothDiscoveryStateMachine()
        #expect(machine.start(.bluetoothScan(timeout: .seconds(10))) == .started(id: 1, timeout: .seconds(10)))
        guard case .deliver(let first) = machine.advertisementsChanged([Self.heard("WP3-B", -50)]) else {
            Issue.record("the first reader was not delivered")
            return
        }
        #expect(first.map(\.serialNumber) == ["WP3-B"])
        #expect(first[0].label == nil)
        #expect(first[0].batteryLevel == nil)
        #expect(first[0].discoveryID == 1)
        guard case .deliver(let second) = machine.advertisementsChanged([Self.heard("WP3-B", -50), Self.heard("WP3-A", -70)]) else {
            Issue.record("a new reader nearby was not delivered")
            return
        }
        #expect(second.map(\.serialNumber) == ["WP3-A", "WP3-B"])
        // The same readers again (a signal change only): nothing new for the app.
        #expect(machine.advertisementsChanged([Self.heard("WP3-A", -40), Self.heard("WP3-B", -50)]) == .none)
        // One powers off: the list without it.
        guard case .deliver(let third) = machine.advertisementsChanged([Self.heard("WP3-A", -40)]) else {
            Issue.record("a reader that left was not reported")
            return
        }
        #expect(third.map(\.serialNumber) == ["WP3-A"])
        #expect(machine.timedOut(1) == .finish(id: 1))
        #expect(machine.state == .idle)
        #expect(machine.advertisementsChanged([Self.heard("WP3-C", -40)]) == .none)
    }

    @Test("only one discovery at a time: a second start is refused until the first is cancelled")
    func oneAtATime() {
        var machine = BluetoothDiscoveryStateMachine()
        #expect(machine.start(.bluetoothProximity) == .started(id: 1, timeout: nil))
        #expect(machine.start(.bluetoothScan(timeout: nil)) == .refusedAlreadyRunning(id: 1))
        // A cancel or a timeout naming another discovery changes nothing.
        #expect(machine.cancelled(7) == .none)
        #expect(machine.timedOut(7) == .none)
        #expect(machine.cancelled(1) == .finish(id: 1))
        #expect(machine.cancelled(1) == .none)
        #expect(machine.start(.bluetoothScan(timeout: nil)) == .started(id: 2, timeout: nil))
    }

    @Test("only the latest discovery's readers may be connected, even after it finished")
    func latestDiscoveryOnly() {
        var machine = BluetoothDiscoveryStateMachine()
        _ = machine.start(.bluetoothScan(timeout: nil))
        #expect(machine.checkConnect(readerFrom: 1) == .fresh)
        _ = machine.cancelled(1)
        #expect(machine.checkConnect(readerFrom: 1) == .fresh)
        _ = machine.start(.bluetoothScan(timeout: nil))
        #expect(machine.checkConnect(readerFrom: 1) == .stale(discovery: 1, latest: 2))
        #expect(machine.checkConnect(readerFrom: 2) == .fresh)
    }

    @Test("proximity delivers the closest reader twice (serial, then battery) and keeps it until it powers off")
    func proximityKeepsTheFirst() throws {
        var machine = BluetoothDiscoveryStateMachine()
        _ = machine.start(.bluetoothProximity)
        guard case .deliverAndReadDetails(let first, let serial) = machine.advertisementsChanged([Self.heard("CHB-FAR", -80), Self.heard("CHB-NEAR", -40)]) else {
            Issue.record("the closest reader was not delivered")
            return
        }
        #expect(serial == "CHB-NEAR")
        #expect(first.map(\.serialNumber) == ["CHB-NEAR"])
        #expect(first[0].batteryLevel == nil)
        #expect(machine.detailsRead(serialNumber: "CHB-NEAR", batteryLevel: 0.62) == .deliver([
            BluetoothDiscoveredReader(serialNumber: "CHB-NEAR", deviceType: .wisePad3, batteryLevel: 0.62, softwareVersion: "2.4.0", discoveryID: 1)
        ]))
        // Details read again, or for another reader: nothing.
        #expect(machine.detailsRead(serialNumber: "CHB-NEAR", batteryLevel: 0.5) == .none)
        #expect(machine.detailsRead(serialNumber: "CHB-FAR", batteryLevel: 0.5) == .none)
        // A closer reader appears: the first is kept.
        #expect(machine.advertisementsChanged([Self.heard("CHB-FAR", -80), Self.heard("CHB-NEAR", -40), Self.heard("CHB-CLOSER", -20)]) == .none)
        // The first powers off: the closest now.
        guard case .deliverAndReadDetails(let next, "CHB-CLOSER") = machine.advertisementsChanged([Self.heard("CHB-FAR", -80), Self.heard("CHB-CLOSER", -20)]) else {
            Issue.record("the closest remaining reader was not delivered after the first powered off")
            return
        }
        #expect(next.map(\.serialNumber) == ["CHB-CLOSER"])
        // Nothing left: an empty list.
        _ = machine.detailsRead(serialNumber: "CHB-CLOSER", batteryLevel: 0.9)
        #expect(machine.advertisementsChanged([]) == .deliver([]))
        #expect(machine.advertisementsChanged([]) == .none)
    }
}
