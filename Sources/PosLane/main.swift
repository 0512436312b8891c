import Foundation
import GatewayClient
import GatewayCommandLine
import GatewayCore
import GatewaySimulators
import GatewayWireClients

// pos-lane: an interactive point-of-sale lane on the client library. Commands on stdin
// (see LaneCommand), one `EVENT key=value ...` line per result and per session event on stdout.

let configuration: LaneConfiguration
do {
    guard let parsed = try LaneConfiguration.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) else {
        print(LaneConfiguration.parser.helpText())
        print("""
        Stdin: discover | connect READER_ID [--fail-if-in-use] | collect AMOUNT | confirm | cancel
               display "ITEM" AMOUNT | clear | reboot | install-update | cancel-update | disconnect | quit
               tap-to-pay [MODEL OS_VERSION] | tap [BRAND LAST4] | background | foreground
        Bluetooth (the readers of --bluetooth-readers simulated around this device, or of --bluetooth-air PATH):
               bt-scan [SECONDS] | bt-proximity | bt-connect SERIAL | bt-disconnect | bt-cancel-reconnect
               bt-power SERIAL on|off | bt-range SERIAL in|out | bt-battery SERIAL LEVEL | bt-hours HOURS
               bt-card SERIAL [BRAND LAST4]   (the last five: --bluetooth-readers only; reader-sim drives its own)
        Recommended: connect with --fail-if-in-use first; when the answer is `busy`, ask, then connect without it.
        """)
        exit(0)
    }
    configuration = parsed
} catch {
    LineWriter.error("\(error)")
    exit(OptionsError.exitCode)
}

let connection = GatewayConnection(ClientChannelConfiguration(
    host: configuration.gateway.host, port: configuration.gateway.port, serverName: configuration.serverName, trustedCAPath: configuration.caPath
))
let terminal = TerminalClient(connection: connection)
do {
    var token = configuration.connectionToken ?? ""
    if token.isEmpty, let secretKey = configuration.secretKey {
        // What a POS backend does: mint a short-lived connection token with the secret key.
        token = try await AdminClient(connection: connection, secretKey: secretKey).createConnectionToken(locationID: configuration.locationID).secret
    }
    let session = try await terminal.openSession(connectionToken: token, posDeviceID: configuration.posDeviceID, laneLabel: configuration.laneLabel)
    LineWriter.line("session", ["session_id": session.sessionID, "lane": configuration.laneLabel, "pos_device_id": configuration.posDeviceID])
} catch {
    // The secret key's call throws the call layer's RPCError; the session's, a TerminalError.
    guard let failure = (error as? TerminalError)?.underlying ?? (error as? RPCError) else {
        LineWriter.error("pos-lane: could not open a session: \(error)")
        exit(69)
    }
    LineWriter.error("pos-lane: could not open a session: \(failure.message) (\(failure.codeName) / \(failure.reasonName))")
    exit(failure.code == .unauthenticated || failure.code == .permissionDenied ? 77 : 69)
}

// Session events, printed as they arrive: through the delegate, which runs before a command
// that failed because of the event returns, so `disconnected` always precedes that `error`.
let printer = LaneEventPrinter()
terminal.setDelegate(printer)

let lane: Lane
if let path = configuration.bluetoothAirPath {
    // The Bluetooth readers reader-sim hosts, reached through its Unix socket.
    do throws(BluetoothError) {
        let radio = try BluetoothAirSocketRadio(path: path, deviceID: configuration.posDeviceID)
        lane = Lane(terminal: terminal, configuration: configuration, air: nil, radio: radio)
        LineWriter.line("bluetooth_air", ["path": path])
    } catch {
        LineWriter.error("pos-lane: --bluetooth-air \(path): \(error.message)")
        exit(69)
    }
} else {
    lane = Lane(terminal: terminal, configuration: configuration)
}
let (lines, sink) = AsyncStream.makeStream(of: String.self)
let reader = Thread {
    while let line = readLine() { sink.yield(line) }
    sink.finish()
}
reader.start()
for await line in lines {
    do {
        guard let command = try LaneCommand.parse(line) else { continue }
        await lane.run(command)
        if command == .quit { exit(0) }
    } catch {
        LineWriter.line("error", ["command": line, "message": "\(error)"])
    }
}
await lane.run(.quit)
exit(0)
