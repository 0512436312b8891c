import Foundation
import GatewayClient
import GatewayCommandLine
import GatewayCore

// pos-lane: an interactive point-of-sale lane on the client library. Commands on stdin
// (see LaneCommand), one `EVENT key=value ...` line per result and per session event on stdout.

let configuration: LaneConfiguration
do {
    guard let parsed = try LaneConfiguration.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) else {
        print(LaneConfiguration.parser.helpText())
        print("""
        Stdin: discover | connect READER_ID [--fail-if-in-use] | collect AMOUNT | confirm | cancel
               display "ITEM" AMOUNT | clear | reboot | disconnect | quit
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
} catch let error as RPCError {
    LineWriter.error("pos-lane: could not open a session: \(error.message) (\(error.codeName) / \(error.reasonName))")
    exit(error.code == .unauthenticated || error.code == .permissionDenied ? 77 : 69)
} catch {
    LineWriter.error("pos-lane: could not open a session: \(error)")
    exit(69)
}

// Session events, printed as they arrive.
let events = Task {
    for await event in terminal.events {
        switch event {
        case .disconnected(let info):
            LineWriter.line("disconnected", [
                "reader_id": info.readerID, "reason": LaneEventNames.reason(info.reason),
                "taken_by_lane": info.takenByLaneLabel, "taken_by_pos_device": info.takenByPosDeviceID, "message": info.message,
            ])
        case .readerStatusChanged(let reader):
            LineWriter.line("reader_status", ["reader_id": reader.id, "status": LaneEventNames.network(reader), "activity": LaneEventNames.activity(reader)])
        case .reconnectStarted(let readerID):
            LineWriter.line("reconnect_started", ["reader_id": readerID])
        case .reconnectSucceeded(let readerID):
            LineWriter.line("reconnect_succeeded", ["reader_id": readerID])
        case .reconnectFailed(let readerID, let error):
            LineWriter.line("reconnect_failed", ["reader_id": readerID, "reason": error.reasonName])
        case .updateProgress(let readerID, let progress):
            LineWriter.line("update_progress", ["reader_id": readerID, "progress": "\(progress)"])
        case .connectionLost(let error):
            LineWriter.line("connection_lost", ["message": error.message])
        case .sessionResumed(let session):
            LineWriter.line("session_resumed", ["session_id": session.sessionID, "reader_id": session.connectedReader?.id ?? ""])
        case .sessionEnded(let error):
            LineWriter.line("session_ended", ["reason": error.reasonName, "message": error.message])
        }
    }
}

let lane = Lane(terminal: terminal, configuration: configuration)
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
