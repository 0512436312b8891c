import GatewayWire

extension AdminRendering {
    public static func json(_ event: ReaderGatewayV1.AuditEvent) -> JSONValue {
        func optional(_ text: String) -> JSONValue { text.isEmpty ? .null : .string(text) }
        return .object([
            "id": .string(event.id), "created_unix_ms": .integer(event.createdUnixMs), "action": .string(event.action),
            "key_id": optional(event.keyID), "key_name": .string(event.keyName), "source_address": .string(event.sourceAddress),
            "user_agent": optional(event.userAgent), "outcome": .string(event.outcome),
            "reader_id": optional(event.readerID), "location_id": optional(event.locationID), "target_id": optional(event.targetID),
            "detail": .string(event.detail),
        ])
    }

    public static func json(_ page: ReaderGatewayV1.ListAuditEventsResponse) -> JSONValue {
        .object([
            "events": .array(page.events.map { json($0) }),
            "next_page_token": page.nextPageToken.isEmpty ? .null : .string(page.nextPageToken),
        ])
    }

    /// One row per change: when, what, which key (its name, then its id), from where, the
    /// outcome, what it concerned and what was done.
    public static func table(_ events: [ReaderGatewayV1.AuditEvent]) -> Table {
        Table(headers: ["CREATED", "ACTION", "KEY", "SOURCE", "OUTCOME", "READER", "LOCATION", "DETAIL"], rows: events.map {
            [time($0.createdUnixMs), $0.action, "\($0.keyName.isEmpty ? "account key" : $0.keyName)" + ($0.keyID.isEmpty ? "" : " (\($0.keyID))"),
             $0.sourceAddress + ($0.userAgent.isEmpty ? "" : " (console)"), $0.outcome, dash($0.readerID), dash($0.locationID),
             $0.detail]
        })
    }

    /// The page's table, then the command for the next page (none on the last page).
    public static func page(_ page: ReaderGatewayV1.ListAuditEventsResponse) -> String {
        var text = table(page.events).description
        if !page.nextPageToken.isEmpty { text += "\n\nnext page: --page-token \(page.nextPageToken)" }
        return text
    }
}
