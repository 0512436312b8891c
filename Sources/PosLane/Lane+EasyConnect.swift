import GatewayClient
import GatewayCommandLine
import GatewayWire

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
            let response = try await terminal.easyConnect(locationID: configuration.locationID, filter: filter, failIfInUse: failIfInUse)
            readers = []
            let reader = response.connection?.reader
            var fields: [(key: String, value: String)] = [
                ("reader_id", reader?.id ?? ""), ("label", reader?.label ?? ""), ("serial", reader?.serialNumber ?? ""),
                ("discovery_id", response.discoveryID), ("generation", "\(response.connection?.generation ?? 0)"),
                ("replaced_other_session", response.connection?.replacedOtherSession == true ? "true" : "false"),
            ]
            if let update = reader?.availableUpdate { fields.append(("available_update", update.version)) }
            if let failure = response.connection?.requiredUpdateFailure { fields.append(("required_update_failure", failure.message)) }
            LineWriter.line(OutputLine(event: "connected", fields: fields))
        } catch let error as RPCError where error.reason == .readerBusy {
            // The recommended pattern: ask the user before interrupting another lane's payment.
            LineWriter.line("busy", [
                key: value,
                "message": "the reader is mid-transaction for another lane; to take it over anyway: easy-connect \(flag) \(value)",
            ])
        }
    }
}
