import GatewayClient
import GatewayCommandLine
import GatewaySimulators
import GatewayWire

/// reader-sim's Bluetooth readers (`--bluetooth-air PATH`): a simulated air served on a Unix
/// socket to pos-lane (`BluetoothAirSocketRadio`), its readers driven from stdin, what happens
/// to them printed as `EVENT key=value` lines.
final class BluetoothReaderHost: Sendable {
    let air: SimulatedBluetoothAir
    let server: SimulatedBluetoothAirServer
    let serials: [String]

    init(_ configuration: SimulatorConfiguration, path: String) throws(BluetoothError) {
        air = SimulatedBluetoothAir(options: .init(
            securityRebootAfter: configuration.securityRebootAfter, batteryDrainPerHour: configuration.batteryDrain,
            updateDuration: configuration.updateDuration
        ))
        serials = configuration.bluetoothReaders.map(\.serialNumber)
        for (index, spec) in configuration.bluetoothReaders.enumerated() {
            air.addReader(
                serialNumber: spec.serialNumber, deviceType: spec.deviceType, signalStrength: -50 - 5 * index,
                batteryLevel: configuration.batteryLevel ?? 0.87, softwareVersion: configuration.softwareVersion
            )
        }
        let air = self.air
        let failUpdates = configuration.failUpdates
        server = try SimulatedBluetoothAirServer(air: air, path: path) { serial in
            if failUpdates { air.failNextUpdate(serial) }
        } onEvent: { event in
            Self.print(event)
        }
    }

    /// Applies one stdin command to the readers it targets.
    func apply(_ command: SimulatorCommand, line: String) {
        if command.isSmartReaderOnly {
            Output.line("error", [
                "command": line,
                "message": "`\(command.verb)` is for smart readers; Bluetooth readers take power, range, idle, battery, present, confirm, reject, fail-update, hours, status, quit",
            ])
            return
        }
        if case .hours(let hours) = command {
            passTime(hours)
            return
        }
        let targets = serials.filter { command.applies(to: $0) }
        guard !targets.isEmpty else {
            Output.line("error", ["command": line, "message": "no simulated Bluetooth reader with serial \(command.target); hosted: \(serials.joined(separator: ","))"])
            return
        }
        for serial in targets { apply(command, to: serial, line: line) }
    }

    private func apply(_ command: SimulatorCommand, to serial: String, line: String) {
        switch command {
        case .power(_, let on):
            air.setPower(serial, on: on)
            Output.line(on ? "powered_on" : "powered_off", on ? ["serial": serial] : ["serial": serial, "reason": "powered_off"])
        case .range(_, let inRange):
            air.setInRange(serial, inRange)
            Output.line("range", ["serial": serial, "in_range": inRange ? "true" : "false"])
        case .idle:
            air.idlePowerDown(serial)
            Output.line("powered_off", ["serial": serial, "reason": "idle_power_down"])
        case .battery(_, let level):
            let wasOn = air.status(serial)?.poweredOn ?? false
            air.setBattery(serial, level)
            Output.line("battery", ["serial": serial, "level": "\(level)"])
            if wasOn && !(air.status(serial)?.poweredOn ?? true) {
                Output.line("powered_off", ["serial": serial, "reason": "critically_low_battery"])
            }
        case .present(_, let brand, let last4):
            air.presentCard(serial, .init(brand: brand, last4: last4))
            Output.line("card_ready", ["serial": serial, "brand": brand, "last4": last4])
        case .answerPairing(_, let accepted):
            guard let passkey = air.displayedPasskey(serial) else {
                Output.line("error", ["command": line, "message": "reader \(serial) shows no passkey; answer after its `pairing` line"])
                return
            }
            air.answerPairingOnReader(serial, accepted: accepted)
            Output.line("pairing_answered", ["serial": serial, "passkey": passkey, "accepted": accepted ? "true" : "false"])
        case .failUpdate:
            air.failNextUpdate(serial)
            Output.line("update_will_fail", ["serial": serial])
        case .status:
            printStatus(serial)
        case .quit, .hours:
            break
        case .silent, .wake, .drop, .offline, .online, .reboot, .slow, .changeIP, .decline:
            break
        }
    }

    /// Simulated time passes for the whole air: batteries drain, readers up for the security
    /// reboot's uptime reboot themselves.
    private func passTime(_ hours: Double) {
        let before = serials.map { air.status($0) }
        air.advance(by: .milliseconds(Int64(hours * 3_600_000)))
        Output.line("time_passed", ["hours": "\(hours)"])
        let advanced = Duration.milliseconds(Int64(hours * 3_600_000))
        for (serial, previous) in zip(serials, before) {
            guard let previous, let now = air.status(serial) else { continue }
            if previous.poweredOn && !now.poweredOn {
                Output.line("powered_off", ["serial": serial, "reason": "critically_low_battery"])
            } else if previous.poweredOn && now.uptime < previous.uptime + advanced {
                Output.line("rebooted", ["serial": serial, "reason": "security_reboot"])
            }
            printStatus(serial)
        }
    }

    private func printStatus(_ serial: String) {
        guard let status = air.status(serial) else { return }
        Output.line("status", [
            "serial": serial, "battery": "\(status.batteryLevel)", "powered_on": status.poweredOn ? "true" : "false",
            "uptime_hours": "\(Double(status.uptime.components.seconds) / 3600)", "connected_to": status.connectedTo ?? "",
            "version": air.softwareVersion(serial) ?? "",
        ])
    }

    private static func print(_ event: SimulatedBluetoothAirServer.Event) {
        switch event {
        case .deviceArrived(let device):
            Output.line("device_arrived", ["device": device])
        case .deviceLeft(let device, let error):
            Output.line("device_left", error.map { ["device": device, "error": $0] } ?? ["device": device])
        case .connected(let serial, let device):
            Output.line("bluetooth_connected", ["serial": serial, "device": device])
        case .disconnected(let serial, let device, let reason):
            Output.line("bluetooth_disconnected", ["serial": serial, "device": device, "reason": reasonName(reason)])
        case .pairing(let serial, let device, let passkey):
            Output.line("pairing", ["serial": serial, "device": device, "passkey": passkey])
        case .badInput(let device, let message):
            Output.line("bad_input", ["device": device, "message": message])
        case .commandStarted(let serial, let command):
            guard let kind = kindName(command) else { return }
            if case .installUpdate(let update)? = command.command {
                Output.line("command", ["serial": serial, "kind": kind, "id": "\(command.commandID)", "version": update.version])
            } else {
                Output.line("command", ["serial": serial, "kind": kind, "id": "\(command.commandID)"])
            }
        case .updateProgress(let serial, let version, let progress):
            Output.line("update_progress", ["serial": serial, "version": version, "progress": "\(progress)"])
        case .commandFinished(let serial, let command, let result):
            let status = statusName(result.status)
            if case .installUpdate(let update)? = command.command {
                switch status {
                case "OK": Output.line("updated", ["serial": serial, "version": update.version])
                case "COMMAND_CANCELED": Output.line("update_canceled", ["serial": serial, "version": update.version])
                default: Output.line("update_failed", ["serial": serial, "version": update.version, "reason": status, "message": result.status?.message ?? ""])
                }
            }
            guard let kind = kindName(command) else { return }
            Output.line("result", ["serial": serial, "kind": kind, "id": "\(command.commandID)", "status": status])
        }
    }

    /// `OK`, or the error reason without its prefix (`READER_SOFTWARE_UPDATE_FAILED`).
    private static func statusName(_ status: ReaderGatewayV1.Status?) -> String {
        guard let status, status.code != .ok else { return "OK" }
        return status.reason.protoName.map { String($0.dropFirst("ERROR_REASON_".count)) } ?? "\(status.reason.rawValue)"
    }

    private static func kindName(_ command: ReaderGatewayV1.ReaderCommand) -> String? {
        switch command.command {
        case .collectPaymentMethod?: "collect"
        case .confirmPaymentIntent?: "confirm"
        case .cancelCollect?: "cancel_collect"
        case .setDisplay?: "display"
        case .clearDisplay?: "clear_display"
        case .reboot?: "reboot"
        case .installUpdate?: "install_update"
        case .cancelUpdate?: "cancel_update"
        case nil: nil
        }
    }

    /// `powered_off` for `MOBILE_DISCONNECT_REASON_POWERED_OFF`.
    static func reasonName(_ reason: ReaderGatewayV1.MobileDisconnectReason) -> String {
        guard let name = reason.protoName else { return "unknown" }
        return String(name.dropFirst("MOBILE_DISCONNECT_REASON_".count)).lowercased()
    }
}
