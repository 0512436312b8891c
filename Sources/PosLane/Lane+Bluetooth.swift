import Foundation
import GatewayClient
import GatewayCommandLine
import GatewaySimulators
import GatewayWire

/// The lane's Bluetooth readers: its simulated radio in an air of simulated readers (the
/// phone's surroundings), discovery, connect with pairing, and the readers' events.
extension Lane {
    func runBluetooth(_ command: BluetoothLaneCommand) async throws {
        switch command {
        case .scan(let seconds):
            let discovery = try terminal.discoverBluetoothReaders(.bluetoothScan(timeout: .milliseconds(Int64(seconds * 1000))), radio: radio)
            for await list in discovery.updates {
                bluetoothReaders = list
                LineWriter.line("bluetooth_readers", [
                    "discovery": "\(discovery.id)", "serials": list.map(\.serialNumber).joined(separator: ","), "count": "\(list.count)",
                ])
            }
            LineWriter.line("bluetooth_scan_done", ["discovery": "\(discovery.id)", "count": "\(bluetoothReaders.count)"])
        case .proximity:
            let discovery = try terminal.discoverBluetoothReaders(.bluetoothProximity, radio: radio)
            var deliveries = 0
            for await list in discovery.updates {
                bluetoothReaders = list
                deliveries += 1
                let reader = list.first
                LineWriter.line("bluetooth_closest", [
                    "discovery": "\(discovery.id)", "serial": reader?.serialNumber ?? "",
                    "battery": reader?.batteryLevel.map { String(format: "%.2f", $0) } ?? "",
                ])
                if deliveries == 2 || list.isEmpty { break }
            }
            discovery.cancel()
        case .connect(let serial):
            guard let reader = bluetoothReaders.first(where: { $0.serialNumber == serial }) else {
                LineWriter.line("error", ["command": "bt-connect", "message": "no reader \(serial) in the latest Bluetooth discovery; run `bt-scan` first"])
                return
            }
            let air = self.air
            let configuration = BluetoothConnectionConfiguration(locationID: self.configuration.locationID) { passkey in
                guard let air else {
                    // reader-sim hosts the reader: the user confirms there (its `confirm SERIAL`)
                    // and selects Pair here.
                    LineWriter.line("pairing", ["serial": serial, "passkey": passkey])
                    return true
                }
                // The simulated user checks that both show the same digits, confirms on the
                // reader and selects Pair here.
                LineWriter.line("pairing", ["serial": serial, "passkey": passkey, "on_reader": air.displayedPasskey(serial) ?? ""])
                air.answerPairingOnReader(serial, accepted: true)
                return true
            }
            let connection = try await terminal.connectBluetoothReader(reader, radio: radio, configuration)
            bluetoothConnection = connection
            bluetoothReaders = []
            Task { for await event in connection.events { LaneEventNames.printMobile(event) } }
            LineWriter.line("bluetooth_connected", [
                "reader_id": connection.reader.id, "serial": connection.serialNumber, "location": connection.reader.locationID,
                "device_type": connection.reader.deviceType.name,
            ])
        case .disconnect:
            guard let connection = bluetoothConnection else {
                LineWriter.line("error", ["command": "bt-disconnect", "message": "no Bluetooth reader connected; run `bt-connect SERIAL` first"])
                return
            }
            try await connection.disconnect()
            bluetoothConnection = nil
            LineWriter.line("bluetooth_disconnected", ["serial": connection.serialNumber])
        case .cancelReconnect:
            bluetoothConnection?.cancelReconnect()
            LineWriter.line("reconnect_cancel_requested", [:])
        case .power, .range, .battery, .hours, .card:
            guard let air else {
                LineWriter.line("error", [
                    "command": "bt-\(command.verb)",
                    "message": "the Bluetooth readers live in reader-sim (--bluetooth-air); drive them on its stdin (power, range, battery, hours, present)",
                ])
                return
            }
            driveAir(air, command)
        }
    }

    /// Drives a reader of this lane's own simulated air.
    private func driveAir(_ air: SimulatedBluetoothAir, _ command: BluetoothLaneCommand) {
        switch command {
        case .scan, .proximity, .connect, .disconnect, .cancelReconnect:
            break
        case .power(let serial, let on):
            air.setPower(serial, on: on)
            LineWriter.line("bluetooth_power", ["serial": serial, "on": on ? "true" : "false"])
        case .range(let serial, let inRange):
            air.setInRange(serial, inRange)
            LineWriter.line("bluetooth_range", ["serial": serial, "in_range": inRange ? "true" : "false"])
        case .battery(let serial, let level):
            air.setBattery(serial, level)
            LineWriter.line("bluetooth_battery", ["serial": serial, "level": String(format: "%.2f", level)])
        case .hours(let hours):
            air.advance(by: .milliseconds(Int64(hours * 3_600_000)))
            LineWriter.line("bluetooth_time_passed", ["hours": "\(hours)"])
        case .card(let serial, let brand, let last4):
            air.presentCard(serial, .init(brand: brand, last4: last4))
            LineWriter.line("card_presented", ["serial": serial, "brand": brand, "last4": last4])
        }
    }
}

extension LaneEventNames {
    /// Prints a Bluetooth reader's event (`mobile_reader` lines).
    static func printMobile(_ event: MobileReaderEvent) {
        switch event {
        case .didStartReconnect(let serial, let reason):
            LineWriter.line("bluetooth_reconnect_started", ["serial": serial, "reason": mobileReason(reason)])
        case .didSucceedReconnect(let serial):
            LineWriter.line("bluetooth_reconnect_succeeded", ["serial": serial])
        case .didFailReconnect(let serial):
            LineWriter.line("bluetooth_reconnect_failed", ["serial": serial])
        case .didDisconnect(let serial, let reason):
            LineWriter.line("bluetooth_reader_disconnected", ["serial": serial, "reason": mobileReason(reason)])
        case .didRequestPairing(let serial, let passkey):
            LineWriter.line("pairing", ["serial": serial, "passkey": passkey])
        }
    }

    /// A mobile reader's reason by the wire's name (`powered_off` for
    /// `MOBILE_DISCONNECT_REASON_POWERED_OFF`); a session's reason as ``reason(_:)`` names it.
    static func mobileReason(_ reason: DisconnectReason) -> String {
        switch reason {
        case .disconnectRequested: "disconnect_requested"
        case .securityReboot: "security_reboot"
        case .criticallyLowBattery: "critically_low_battery"
        case .poweredOff: "powered_off"
        case .bluetoothDisabled: "bluetooth_disabled"
        case .idlePowerDown: "idle_power_down"
        case .bluetoothSignalLost: "bluetooth_signal_lost"
        case .appInBackground: "app_in_background"
        case .unknown: "unknown"
        case .rebootRequested, .readerLost, .replaced, .adminReleased, .sessionExpired, .readerUnregistered, .storeRolledBack: Self.reason(reason)
        }
    }
}
