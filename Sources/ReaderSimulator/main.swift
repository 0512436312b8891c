import Foundation
import GatewayClient
import GatewayCommandLine
import GatewayCore
import GatewayTransport

// reader-sim: N simulated smart readers. State changes are lines on stdout
// (`registration_code serial=... code=...`, `online ...`, `offline ...`, `command ...`);
// fault injection and test helpers are lines on stdin (see SimulatorCommand).

let configuration: SimulatorConfiguration
do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    let options = try SimulatorConfiguration.parser.parse(arguments: arguments, environment: ProcessInfo.processInfo.environment)
    if options.helpRequested {
        print(SimulatorConfiguration.parser.helpText())
        print("""
        Stdout: one line per event, `EVENT key=value ...` (values with spaces are double-quoted):
          attaching, registration_code (serial, code), registered (serial, reader_id, label, location),
          online (serial, reader_id), offline (serial, reason), owner (serial, lane, generation),
          command (serial, kind, id), result (serial, kind, id, status[, decline_code]), display, rebooting, status, error,
          waiting_for_card (serial; --card manual: type `present SERIAL BRAND LAST4` to tap a card),
          update_progress (serial, version, progress), updated (serial, version), update_failed (serial, version, reason),
          update_canceled (serial, version), battery (serial, level), powered_off (serial, reason).

        Stdin: one command per line; SERIAL may be `all`:
          silent SERIAL | wake SERIAL | drop SERIAL [DURATION] | offline SERIAL | online SERIAL
          reboot SERIAL | slow SERIAL DURATION | ip SERIAL ADDRESS | present SERIAL BRAND LAST4
          decline SERIAL [CODE] [confirm] (the next collect, or with `confirm` the next confirm, fails
          with CARD_DECLINED and decline code CODE, default generic_decline; e.g. insufficient_funds)
          battery SERIAL LEVEL | fail-update SERIAL | status [SERIAL] | quit

        Bluetooth readers (--bluetooth-air PATH): no gateway connection of their own; pos-lane
        --bluetooth-air PATH scans, pairs and connects them through the socket. Stdout adds
          device_arrived, device_left, bluetooth_connected (serial, device),
          bluetooth_disconnected (serial, device, reason), pairing (serial, device, passkey),
          pairing_answered, powered_off (serial, reason), powered_on, range, rebooted (serial, reason),
          time_passed (hours), bad_input (device, message).
        Stdin: power SERIAL on|off | range SERIAL in|out | idle SERIAL | confirm SERIAL | reject SERIAL
          hours N | battery SERIAL LEVEL | present SERIAL BRAND LAST4 | fail-update SERIAL | status [SERIAL] | quit
        """)
        exit(0)
    }
    configuration = try SimulatorConfiguration(options)
} catch {
    Output.error("\(error)")
    exit(OptionsError.exitCode)
}

/// SIGINT or SIGTERM: `cleanUp`, a `stopped` line, exit 0. The handlers are in place when it
/// returns (before the `started` line), so a signal sent after `started` is never lost; the
/// task is nonisolated (a main-actor closure run off the main thread traps in Swift 6). It ends
/// the process with `_exit`: `exit` runs the libraries' exit handlers (OpenSSL's among them)
/// while the readers' loops still run, and one time in three that crashed with SIGSEGV. The
/// line is already written (`LineWriter` writes each line to the descriptor at once).
func stopOnSignal(_ cleanUp: @escaping @Sendable () -> Void) -> Task<Void, Never> {
    guard let waiter = SignalWaiter.install() else {
        Output.error("reader-sim: could not install the SIGINT and SIGTERM handlers")
        exit(71)
    }
    return Task.detached {
        for await number in waiter.signals {
            cleanUp()
            Output.line("stopped", ["signal": number == SIGINT ? "INT" : "TERM"])
            _exit(0)
        }
    }
}

if let path = configuration.bluetoothAirPath {
    // Bluetooth readers: no gateway connection of their own; pos-lane reaches them through
    // the air's socket and carries their links.
    let host: BluetoothReaderHost
    do throws(BluetoothError) {
        host = try BluetoothReaderHost(configuration, path: path)
    } catch {
        Output.error("reader-sim: --bluetooth-air \(path): \(error.message)")
        exit(71)
    }
    _ = stopOnSignal { host.server.close() }
    Output.line("started", ["readers": "\(host.serials.count)", "bluetooth_air": path, "serials": host.serials.joined(separator: ",")])
    while let line = readLine() {
        do {
            guard let command = try SimulatorCommand.parse(line) else { continue }
            if command == .quit {
                host.server.close()
                Output.line("stopped", ["signal": "quit"])
                exit(0)
            }
            host.apply(command, line: line)
        } catch {
            Output.line("error", ["command": line, "message": "\(error)"])
        }
    }
    // Stdin closed: keep serving until a signal.
    while true { sleep(3_600) }
}

let certificates: ReaderCertificates?
var pairs: [String: CertificateKeyPair] = [:]
do {
    certificates = try ReaderCertificates(configuration)
    if let certificates {
        for serial in configuration.serials { pairs[serial] = try certificates.pair(for: serial) }
    }
} catch {
    Output.error("reader-sim: \(error)")
    exit(78)
}

let group: EventLoopGroup
do {
    group = try EventLoopGroup(loopCount: min(2, max(1, configuration.serials.count / 64 + 1)))
} catch {
    Output.error("reader-sim: could not start event loops: \(error)")
    exit(71)
}

let readers = configuration.serials.enumerated().map { index, serial in
    SimulatedReader(serial: serial, index: index, configuration: configuration, certificate: pairs[serial], group: group)
}
let readerTasks = readers.map { reader in Task { await reader.run() } }

// SIGINT / SIGTERM: exit 0.
_ = stopOnSignal {}

// Stdin commands, read on a thread of their own.
let (commandLines, commandSink) = AsyncStream.makeStream(of: String.self)
let stdinThread = Thread {
    while let line = readLine() { commandSink.yield(line) }
    commandSink.finish()
}
stdinThread.start()

Output.line("started", ["readers": "\(readers.count)", "gateway": configuration.gateway.description])
for await line in commandLines {
    do {
        guard let command = try SimulatorCommand.parse(line) else { continue }
        if command.isBluetoothOnly {
            Output.line("error", ["command": line, "message": "`\(command.verb)` is for Bluetooth readers (reader-sim --bluetooth-air PATH); these are smart readers"])
            continue
        }
        let targets = readers.filter { command.applies(to: $0.serial) }
        if targets.isEmpty {
            Output.line("error", ["command": line, "message": "no simulated reader with serial \(command.target)"])
            continue
        }
        for reader in targets { await reader.apply(command) }
        if command == .quit {
            for task in readerTasks { task.cancel() }
            Output.line("stopped", ["signal": "quit"])
            exit(0)
        }
    } catch {
        Output.line("error", ["command": line, "message": "\(error)"])
    }
}
// Stdin closed: keep simulating until a signal.
while true { try? await Task.sleep(for: .seconds(3_600)) }
