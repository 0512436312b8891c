import GatewayPostgres

/// The relay's writes to the event log while it is measured: the command outcome events
/// written, and the statements that wrote them when the server loads `pg_stat_statements`
/// (`TEST_POSTGRES_SETTINGS='shared_preload_libraries=pg_stat_statements'`), for the events
/// per statement (the batches' size) and PostgreSQL's work per event.
struct RelayEventLog {
    struct Reading {
        var events: Int
        var statements: Int?
    }

    var events: Int
    var statements: Int?

    /// Its JSON fields (ending in ", ").
    var fields: String {
        "\"events_written\": \(events), \"event_statements\": \(statements.map(String.init) ?? "null"), "
            + "\"events_per_statement\": \(statements.map { $0 > 0 ? String(format: "%.1f", Double(events) / Double($0)) : "null" } ?? "null")"
    }

    static func written(_ client: PostgresClient) async throws -> Reading {
        let rows = try await client.query("SELECT count(*)::bigint AS events FROM events WHERE type LIKE 'reader.action.%'")
        let events = try rows.first?.decode(Int.self, "events") ?? 0
        guard let counter = await StatementCounter.make(client) else { return Reading(events: events, statements: nil) }
        let calls = try await counter.calls()
        return Reading(events: events, statements: calls.filter { $0.key.contains("INSERT INTO events") }.values.reduce(0, +))
    }

    /// What was written since `before`: the events the batcher had queued by then are written
    /// once the lanes stop, so the count waits for them (at most 10 s).
    static func measured(_ client: PostgresClient, before: Reading) async throws -> RelayEventLog {
        var after = try await written(client)
        var previous = -1
        var waits = 0
        while after.events != previous, waits < 100 {
            previous = after.events
            waits += 1
            try await Task.sleep(for: .milliseconds(100))
            after = try await written(client)
        }
        return RelayEventLog(events: after.events - before.events, statements: after.statements.flatMap { a in before.statements.map { a - $0 } })
    }
}
