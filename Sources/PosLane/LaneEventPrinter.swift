import GatewayClient
import GatewayCommandLine

/// Prints every session event as a line (the TerminalDelegate side of the library).
final class LaneEventPrinter: TerminalDelegate {
    func terminal(_ terminal: TerminalClient, didReceive event: TerminalEvent) {
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
            LineWriter.line("reconnect_failed", ["reader_id": readerID, "reason": error.underlying.reasonName])
        case .updateProgress(let readerID, let progress):
            LineWriter.line("update_progress", ["reader_id": readerID, "progress": "\(progress)"])
        case .updateAvailable(let readerID, let update):
            LineWriter.line("update_available", ["reader_id": readerID, "version": update.version, "required": update.isRequired ? "true" : "false"])
        case .updateStarted(let readerID, let update):
            LineWriter.line("update_started", ["reader_id": readerID, "version": update.version, "required": update.isRequired ? "true" : "false"])
        case .connectionLost(let error):
            LineWriter.line("connection_lost", ["message": error.message])
        case .sessionResumed(let session):
            LineWriter.line("session_resumed", ["session_id": session.sessionID, "reader_id": session.connectedReader?.id ?? ""])
        case .sessionEnded(let error):
            LineWriter.line("session_ended", ["reason": error.underlying.reasonName, "message": error.message])
        }
    }
}
