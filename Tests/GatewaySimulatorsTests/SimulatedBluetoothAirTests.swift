import GatewayClient
import GatewaySimulators
import GatewayWire
import Testing

/// The simulated readers behind ``SimulatedRadio``: what they advertise, how their
/// connections end and why, on a simulated clock.
@Suite("Simulated Bluetooth air")
struct SimulatedBluetoothAirTests {
    @Test("batteries drain with simulated time; at the critical level the reader powers down (criticallyLowBattery)")
    func batteryDrain() async throws {
        let air = SimulatedBluetoothAir(options: .init(securityRebootAfter: .seconds(1_000 * 3600), batteryDrainPerHour: 0.1, criticalBatteryLevel: 0.05))
        air.addReader(serialNumber: "M2-1", deviceType: .stripeM2, batteryLevel: 0.5)
        let radio = SimulatedRadio(air: air, deviceID: "phone-1")
        let peripheral = try await radio.connect(serialNumber: "M2-1", timeout: .seconds(30))
        air.advance(by: .seconds(2 * 3600))
        let level = try #require(air.status("M2-1")?.batteryLevel)
        #expect(abs(level - 0.3) < 0.001)
        #expect(peripheral.batteryLevel.map { abs($0 - 0.3) < 0.001 } == true)
        air.advance(by: .seconds(3 * 3600))
        #expect(await peripheral.disconnected() == .criticallyLowBattery)
        #expect(air.status("M2-1")?.poweredOn == false)
    }

    @Test("idle power-down and power-off end the connection with their reasons; a reader connected to one device advertises to nobody")
    func reasons() async throws {
        let air = SimulatedBluetoothAir()
        air.addReader(serialNumber: "WP3-1", deviceType: .bbposWisepad3)
        let phone = SimulatedRadio(air: air, deviceID: "phone-1")
        let other = SimulatedRadio(air: air, deviceID: "phone-2")
        let first = try await phone.connect(serialNumber: "WP3-1", timeout: .seconds(30))
        var heard = other.advertisements().makeAsyncIterator()
        #expect(await heard.next() == [])
        do {
            _ = try await other.connect(serialNumber: "WP3-1", timeout: .seconds(30))
            Issue.record("a second device connected a reader in use")
        } catch {
            #expect(error.code == .connectedToAnotherDevice)
        }
        air.idlePowerDown("WP3-1")
        #expect(await first.disconnected() == .idlePowerDown)
        air.setPower("WP3-1", on: true)
        let second = try await phone.connect(serialNumber: "WP3-1", timeout: .seconds(30))
        air.setPower("WP3-1", on: false)
        #expect(await second.disconnected() == .poweredOff)
    }

    @Test("24 hours of uptime reboot the reader (securityReboot); a power cycle or a reboot restarts the timer")
    func securityReboot() async throws {
        let air = SimulatedBluetoothAir()
        air.addReader(serialNumber: "WP3-1", deviceType: .bbposWisepad3)
        let radio = SimulatedRadio(air: air, deviceID: "phone-1")
        air.advance(by: .seconds(23 * 3600))
        air.setPower("WP3-1", on: false)
        air.setPower("WP3-1", on: true)
        #expect(air.status("WP3-1")?.uptime == .zero)
        let connection = try await radio.connect(serialNumber: "WP3-1", timeout: .seconds(30))
        air.advance(by: .seconds(23 * 3600))
        #expect(air.status("WP3-1")?.connectedTo == "phone-1")
        air.advance(by: .seconds(3600))
        #expect(await connection.disconnected() == .securityReboot)
        #expect(air.status("WP3-1")?.uptime == .zero)
        #expect(air.status("WP3-1")?.poweredOn == true)
    }
}
