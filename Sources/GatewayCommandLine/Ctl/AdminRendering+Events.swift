import GatewayWire

extension AdminRendering {
    public static func json(_ event: ReaderGatewayV1.Event) -> JSONValue {
        .object([
            "id": .string(event.id), "type": .string(event.type), "created_unix_ms": .integer(event.createdUnixMs),
            "reader_id": event.readerID.isEmpty ? .null : .string(event.readerID),
            "location_id": event.locationID.isEmpty ? .null : .string(event.locationID),
            // The object as the gateway wrote it; a document that does not parse stays text.
            "object": JSONValue(parsing: event.objectJson) ?? .string(event.objectJson),
        ])
    }

    public static func json(_ page: ReaderGatewayV1.ListEventsResponse) -> JSONValue {
        .object([
            "events": .array(page.events.map { json($0) }),
            "next_page_token": page.nextPageToken.isEmpty ? .null : .string(page.nextPageToken),
        ])
    }

    public static func table(_ events: [ReaderGatewayV1.Event]) -> Table {
        Table(headers: ["CREATED", "TYPE", "READER", "LOCATION", "ID"], rows: events.map {
            [time($0.createdUnixMs), $0.type, dash($0.readerID), dash($0.locationID), $0.id]
        })
    }

    /// The page's table, then the command for the next page (none on the last page).
    public static func page(_ page: ReaderGatewayV1.ListEventsResponse) -> String {
        var text = table(page.events).description
        if !page.nextPageToken.isEmpty { text += "\n\nnext page: --page-token \(page.nextPageToken)" }
        return text
    }

    /// One event: its fields, then its object as indented JSON.
    public static func detail(_ event: ReaderGatewayV1.Event) -> String {
        table([event]).description + "\n\n" + (JSONValue(parsing: event.objectJson)?.description ?? event.objectJson)
    }
}
