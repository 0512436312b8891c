import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayRepositories
import GatewayWire

/// Writes the events of the SDK surface that no other row carries: a command's outcome on a
/// reader (`reader.action.succeeded` / `.failed`) and an update's install or failure. The
/// reader, ownership and Tap to Pay events are written by PostgreSQL's triggers with their
/// rows (migration 21).
///
/// A command's outcome is queued once the outcome is known and written with the others that
/// arrive together (``ReaderEventBatcher``), so the lane's answer never waits for it and a busy
/// replica writes one statement per batch, not one per command.
struct SDKEventRecorder: StoreFollowUps {
    let events: any FleetEventLog
    let metrics: GatewayMetrics
    let logger: Logger

    /// The action name of a relayed command (`collect_payment_method`, ...); nil for the
    /// commands that have no action event (reboot, update install and cancel: updates have
    /// their own events).
    static func action(_ command: ReaderGatewayV1.ReaderCommand.Command) -> String? {
        actionIndex(command).map { actionFields[$0].action }
    }

    private static func actionIndex(_ command: ReaderGatewayV1.ReaderCommand.Command) -> Int? {
        switch command {
        case .collectPaymentMethod: 0
        case .confirmPaymentIntent: 1
        case .cancelCollect: 2
        case .setDisplay: 3
        case .clearDisplay: 4
        default: nil
        }
    }

    /// The fields every event of an action starts with (`object`, `action`, `status`), built once
    /// for each action and outcome with room for the rest: an event's details are a copy of them
    /// (their storage copied, nothing hashed again) with the session and any error added, not a
    /// dictionary hashed and grown from nothing for every relayed command.
    private struct ActionFields {
        let action: String
        let succeeded: [String: String]
        let failed: [String: String]

        init(_ action: String) {
            func fields(_ status: String) -> [String: String] {
                var fields = [String: String](minimumCapacity: 8)
                fields["object"] = "reader_action"
                fields["action"] = action
                fields["status"] = status
                return fields
            }
            self.action = action
            succeeded = fields("succeeded")
            failed = fields("failed")
        }
    }

    /// In the order of ``actionIndex(_:)``.
    private static let actionFields = [
        "collect_payment_method", "confirm_payment_intent", "cancel_collect_payment_method", "set_reader_display", "clear_reader_display",
    ].map(ActionFields.init)

    /// `READER_TIMEOUT` for `ERROR_REASON_READER_TIMEOUT`.
    static func code(_ reason: ReaderGatewayV1.ErrorReason) -> String {
        let name = reason.protoName ?? "ERROR_REASON_\(reason.rawValue)"
        return name.hasPrefix("ERROR_REASON_") ? String(name.dropFirst("ERROR_REASON_".count)) : name
    }

    /// Queues `command`'s outcome on `reader` for `account` (nil `failure`: it succeeded).
    func commandEnded(
        _ command: ReaderGatewayV1.ReaderCommand.Command, reader: ReaderID, account: String, session: SessionID, failure: ServiceError?
    ) {
        Self.commandEnded(command, reader: reader, account: account, session: session, failure: failure, to: events)
    }

    /// ``commandEnded(_:reader:account:session:failure:)`` with the event log alone.
    static func commandEnded(
        _ command: ReaderGatewayV1.ReaderCommand.Command, reader: ReaderID, account: String, session: SessionID, failure: ServiceError?,
        to events: any FleetEventLog
    ) {
        guard let index = Self.actionIndex(command) else { return }
        var details = failure == nil ? Self.actionFields[index].succeeded : Self.actionFields[index].failed
        details["session_id"] = session.rawValue
        switch command {
        case .collectPaymentMethod(let params): details["payment_intent"] = params.paymentIntentID
        case .confirmPaymentIntent(let params): details["payment_intent"] = params.paymentIntentID
        default: break
        }
        if let failure {
            details["error_code"] = Self.code(failure.reason)
            details["error_message"] = failure.message
            if let declineCode = failure.declineCode { details["decline_code"] = declineCode }
        }
        let type = failure == nil ? EventType.actionSucceeded : EventType.actionFailed
        events.enqueue(ReaderEventBatcher.Event(type: type, reader: reader.rawValue, account: account, details: details))
    }

    /// The same for a command relayed from a connection's loop, which knows the session by its
    /// token alone (a session that ended meanwhile leaves no reader to write about).
    func commandEnded(_ command: ReaderGatewayV1.ReaderCommand.Command, token: String, registry: LiveRegistry, failure: ServiceError?) {
        Self.commandEnded(command, token: token, registry: registry, failure: failure, to: events)
    }

    /// ``commandEnded(_:token:registry:failure:)`` with the event log alone: for a closure kept
    /// per relayed command, which then holds the log, not a copy of this struct (its metrics'
    /// every family retained).
    static func commandEnded(
        _ command: ReaderGatewayV1.ReaderCommand.Command, token: String, registry: LiveRegistry, failure: ServiceError?, to events: any FleetEventLog
    ) {
        // Three fields under the lock, not a copy of the whole session.
        guard action(command) != nil, let subject = registry.commandEventSubject(token: token) else { return }
        commandEnded(command, reader: subject.reader, account: subject.account, session: subject.session, failure: failure, to: events)
    }

    /// Records a failed install of `update` on `reader`.
    func updateFailed(_ update: ReaderGatewayV1.ReaderSoftwareUpdate, reader: ReaderID, account: String, failure: ServiceError) async {
        let details = [
            "object": "reader_software_update", "version": update.version, "required": update.required ? "true" : "false",
            "error_code": Self.code(failure.reason), "error_message": failure.message,
        ]
        await followUp("recording a failed software update in the event log", leaves: "the event log misses that failure") {
            try await events.appendReaderEvent(EventType.softwareUpdateFailed, reader: reader.rawValue, account: account, details: details)
        }
    }
}
