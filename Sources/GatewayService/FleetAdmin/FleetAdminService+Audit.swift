import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// What an audited change concerns, filled in by the change as it learns it.
struct AuditNote: Sendable {
    var readerID: String?
    var locationID: String?
    /// A key's id, an update's device type and version.
    var targetID: String?
    var detail = ""
    /// The change wrote its audit row itself, in its own statement (a forced release).
    var written = false
}

extension FleetAdminService {
    /// Runs a change `method` makes, authorised as ``authorize(_:_:)`` does (a refusal for a
    /// missing permission is audited there), and writes its audit row: `ok` with what the
    /// change noted, or the reason it failed. A change that wrote its row in its own
    /// statement sets ``AuditNote/written``.
    func audited<Response>(
        _ method: FleetAdminMethod, _ context: CallContext,
        _ change: (AdminAccess, inout AuditNote) async throws(ServiceError) -> Response
    ) async throws(ServiceError) -> Response {
        let access = try await authorize(context, method)
        var note = AuditNote()
        do {
            let response = try await change(access, &note)
            if !note.written { await record(auditEntry(method, access, context, note: note)) }
            return response
        } catch {
            // A change that wrote its row in its own statement was made; what failed after it
            // (reading the answer) changes nothing the row says.
            if !note.written {
                note.detail = error.message
                await record(auditEntry(method, access, context, outcome: Self.outcome(error), note: note))
            }
            throw error
        }
    }

    /// Who acts in `access` from where, as the audit log names them.
    func auditActor(_ access: AdminAccess, _ context: CallContext) -> AuditActor {
        AuditActor(
            keyID: access.key.id, keyName: access.key.name, sourceAddress: context.peer,
            userAgent: context.metadataValue("authorization") == nil ? context.consoleUserAgent : nil
        )
    }

    func auditEntry(
        _ method: FleetAdminMethod, _ access: AdminAccess, _ context: CallContext, outcome: String = AuditEntry.ok, note: AuditNote
    ) -> AuditEntry {
        AuditEntry(
            accountID: access.account, action: method.name, actor: auditActor(access, context), outcome: outcome,
            readerID: note.readerID, locationID: note.locationID, targetID: note.targetID, detail: note.detail
        )
    }

    /// Writes `entry`. The change it records is done (or refused) already, so a failure is
    /// logged and counted, not answered.
    func record(_ entry: AuditEntry) async {
        await followUp("writing an audit row (\(entry.action) by \(entry.actor.keyID.isEmpty ? "the account key" : entry.actor.keyID), \(entry.outcome))", leaves: "the audit log misses it") {
            try await audit.record(entry)
        }
    }

    /// The outcome column for a refusal: its reason without the enum's prefix (`PERMISSION_DENIED`).
    static func outcome(_ error: ServiceError) -> String {
        let name = error.reason.protoName ?? "ERROR_REASON_\(error.reason.rawValue)"
        return name.hasPrefix("ERROR_REASON_") ? String(name.dropFirst("ERROR_REASON_".count)) : name
    }

    // MARK: ListAuditEvents

    /// The actions the log records: every method that changes something, and the console's sign-in and sign-out.
    static let auditActions: [String] = FleetAdminMethod.allCases.filter { $0.requirement.level == .write }.map(\.name) + [
        ConsoleAudit.signIn, ConsoleAudit.signOut,
    ]

    var listAuditEvents: FleetAdminRoute.ListAuditEvents {
        .task { [self] request, context throws(ServiceError) in
            let access = try await authorize(context, .listAuditEvents)
            var filter = try Self.auditFilter(request)
            if let locations = access.key.locations {
                // A location-limited key sees its locations' rows alone; another location reads as unknown.
                if let wanted = filter.locationID, !access.sees(wanted) { throw ServiceError.locationNotFound }
                filter.limitedTo = locations
            }
            let page = try await Self.logPage(.audit, token: request.pageToken, limit: request.limit, seq: \AuditRecord.seq) { beforeSeq, limit throws(StoreError) in
                try await audit.events(account: access.account, filter: filter, beforeSeq: beforeSeq, limit: limit)
            }
            var response = ReaderGatewayV1.ListAuditEventsResponse()
            response.events = page.records.map(Self.auditMessage)
            response.nextPageToken = page.nextPageToken
            return response
        }
    }

    /// The request's filters, checked: known actions, a range that is not empty.
    static func auditFilter(_ request: ReaderGatewayV1.ListAuditEventsRequest) throws(ServiceError) -> AuditFilter {
        for action in request.actions where !auditActions.contains(action) {
            throw ServiceError.invalid("actions: \"\(action)\" is not an audited action; the actions are \(auditActions.joined(separator: ", "))")
        }
        if request.createdFromUnixMs < 0 { throw ServiceError.invalid("created_from_unix_ms is negative; give milliseconds since 1970, or 0 for no bound") }
        if request.createdBeforeUnixMs < 0 { throw ServiceError.invalid("created_before_unix_ms is negative; give milliseconds since 1970, or 0 for no bound") }
        if request.createdFromUnixMs > 0, request.createdBeforeUnixMs > 0, request.createdBeforeUnixMs <= request.createdFromUnixMs {
            throw ServiceError.invalid(
                "created_before_unix_ms (\(request.createdBeforeUnixMs)) is not after created_from_unix_ms (\(request.createdFromUnixMs)): the range is empty"
            )
        }
        let succeeded: Bool? =
            switch request.outcome {
            case .succeeded: true
            case .refused: false
            default: nil
            }
        return AuditFilter(
            actions: Array(Set(request.actions)).sorted(),
            keyID: request.keyID.isEmpty ? nil : request.keyID,
            readerID: request.readerID.isEmpty ? nil : request.readerID,
            locationID: request.locationID.isEmpty ? nil : request.locationID,
            succeeded: succeeded,
            createdFromUnixMs: request.createdFromUnixMs == 0 ? nil : request.createdFromUnixMs,
            createdBeforeUnixMs: request.createdBeforeUnixMs == 0 ? nil : request.createdBeforeUnixMs
        )
    }

    static func auditMessage(_ record: AuditRecord) -> ReaderGatewayV1.AuditEvent {
        var message = ReaderGatewayV1.AuditEvent()
        message.id = record.id
        message.createdUnixMs = record.createdUnixMs
        message.action = record.entry.action
        message.keyID = record.entry.actor.keyID
        message.keyName = record.entry.actor.keyName
        message.sourceAddress = record.entry.actor.sourceAddress
        message.userAgent = record.entry.actor.userAgent ?? ""
        message.outcome = record.entry.outcome
        message.readerID = record.entry.readerID ?? ""
        message.locationID = record.entry.locationID ?? ""
        message.targetID = record.entry.targetID ?? ""
        message.detail = record.entry.detail
        return message
    }
}

/// The console's audited actions (beside the `FleetAdmin` methods).
enum ConsoleAudit {
    static let signIn = "ConsoleSignIn"
    static let signOut = "ConsoleSignOut"
}
