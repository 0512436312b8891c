import GatewayClient
import GatewayCommandLine

extension Lane {
    /// `easy-connect`: discovers the one reader named and connects it in one call. A reader
    /// mid-transaction for another lane (with `--fail-if-in-use`) prints `busy` and how to
    /// take it over; nothing found prints the error READER_NOT_FOUND.
    func easyConnect(_ filter: DiscoveryFilter, failIfInUse: Bool) async throws {
        let (key, flag, value) = switch filter {
        case .readerID(let id): ("reader_id", "--reader-id", id)
        case .serialNumber(let serial): ("serial", "--serial", serial)
        }
        do {
            let reader = try await terminal.easyConnect(InternetEasyConnectConfiguration(
                locationID: configuration.locationID, filter: filter, connectionConfiguration: InternetConnectionConfiguration(failIfInUse: failIfInUse)
            ))
            readers = []
            let details = terminal.latestConnection
            var fields: [(key: String, value: String)] = [
                ("reader_id", reader.id), ("label", reader.label), ("serial", reader.serialNumber),
                ("discovery_id", details?.discoveryID ?? ""), ("generation", "\(details?.generation ?? 0)"),
                ("replaced_other_session", details?.replacedOtherSession == true ? "true" : "false"),
            ]
            if let update = reader.availableUpdate { fields.append(("available_update", update.version)) }
            if let failure = details?.requiredUpdateFailure { fields.append(("required_update_failure", failure.message)) }
            LineWriter.line(OutputLine(event: "connected", fields: fields))
        } catch let error as TerminalError where error.code == .readerBusy {
            // The recommended pattern: ask the user before interrupting another lane's payment.
            LineWriter.line("busy", [
                key: value,
                "message": "the reader is mid-transaction for another lane; to take it over anyway: easy-connect \(flag) \(value)",
            ])
        }
    }
}
