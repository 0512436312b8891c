import GatewayClient
import GatewayCommandLine

extension LineWriter {
    /// The `error` line of a failed lane command: the gateway's status code and reason,
    /// Terminal's name for it, for a takeover the lane that took the reader, a declined card's decline code, and the message.
    static func failure(_ command: String, _ error: TerminalError) {
        let wire = error.underlying
        var fields: [(key: String, value: String)] = [
            ("command", command), ("code", wire.codeName), ("reason", wire.reasonName), ("terminal_code", error.code.name),
        ]
        if let takenBy = error.takenBy, !takenBy.takenByLaneLabel.isEmpty { fields.append(("taken_by_lane", takenBy.takenByLaneLabel)) }
        if let declineCode = error.declineCode { fields.append(("decline_code", declineCode)) }
        fields.append(("message", error.message))
        line(OutputLine(event: "error", fields: fields))
    }
}
