import GatewayDomain
import GatewayPostgres

/// Locations' install windows (`location_install_windows`, migration 0011).
extension SoftwareUpdateStore {
    /// The windows of the account's locations among `locations` (those with one).
    public func installWindows(account: String, locations: [String]) async throws(StoreError) -> [String: InstallWindow] {
        guard !locations.isEmpty else { return [:] }
        let rows = try await client.query(
            """
            SELECT w.location_id, w.start_minute, w.end_minute, w.utc_offset_minutes
              FROM location_install_windows w JOIN locations l ON l.id = w.location_id
             WHERE l.account_id = $1 AND w.location_id = ANY(string_to_array($2, ','))
            """,
            [PostgresValue(account), PostgresValue(locations.joined(separator: ","))]
        )
        var windows: [String: InstallWindow] = [:]
        for row in rows {
            let id = try row.decode(String.self, "location_id")
            let start = try row.decode(Int.self, "start_minute"), end = try row.decode(Int.self, "end_minute")
            let offset = try row.decode(Int.self, "utc_offset_minutes")
            // The table's checks keep invalid rows out (one that got in would count as no window).
            windows[id] = try? InstallWindow(startMinute: start, endMinute: end, utcOffsetMinutes: offset)
        }
        return windows
    }

    /// Sets (or with nil, removes) the window of the account's `location`; false when the
    /// account has no such location.
    public func setInstallWindow(_ window: InstallWindow?, location: String, account: String) async throws(StoreError) -> Bool {
        guard let window else {
            let rows = try await client.query(
                """
                WITH owned AS (SELECT id FROM locations WHERE id = $1 AND account_id = $2),
                     gone AS (DELETE FROM location_install_windows WHERE location_id IN (SELECT id FROM owned))
                SELECT count(*) AS n FROM owned
                """,
                [PostgresValue(location), PostgresValue(account)]
            )
            return try (rows.first?.decode(Int.self, "n") ?? 0) > 0
        }
        return try await client.execute(
            """
            INSERT INTO location_install_windows (location_id, start_minute, end_minute, utc_offset_minutes)
            SELECT id, $3::integer, $4::integer, $5::integer FROM locations WHERE id = $1 AND account_id = $2
            ON CONFLICT (location_id) DO UPDATE
               SET start_minute = EXCLUDED.start_minute, end_minute = EXCLUDED.end_minute,
                   utc_offset_minutes = EXCLUDED.utc_offset_minutes, updated_at = now()
            """,
            [
                PostgresValue(location), PostgresValue(account), PostgresValue(window.startMinute), PostgresValue(window.endMinute),
                PostgresValue(window.utcOffsetMinutes),
            ]
        ) > 0
    }
}
