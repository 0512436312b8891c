import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayWire

/// The software update rows: each account's catalog (`software_updates`) and what the update
/// rules remember per reader (`reader_update_status`).
public struct SoftwareUpdateStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) {
        self.client = client
    }

    /// The components an update may name (Stripe's UpdateComponents).
    public static let knownComponents: Set<String> = ["incremental", "firmware", "config", "keys"]

    /// The account's catalog, for one device type or (`.unspecified`) all; by device type, newest version first.
    public func catalog(account: String, deviceType: ReaderGatewayV1.DeviceType = .unspecified) async throws(StoreError) -> [ReaderGatewayV1.ReaderSoftwareUpdate] {
        let rows = try await client.query(
            """
            SELECT device_type, version, components, duration_estimate,
                   (extract(epoch FROM required_at) * 1000)::bigint AS required_at_ms,
                   (extract(epoch FROM added_at) * 1000)::bigint AS added_at_ms
              FROM software_updates
             WHERE account_id = $1 AND ($2 = 'unspecified' OR device_type = $2)
            """,
            [PostgresValue(account), PostgresValue(ReaderStore.deviceTypeName(deviceType))]
        )
        var updates: [ReaderGatewayV1.ReaderSoftwareUpdate] = []
        for row in rows {
            var update = ReaderGatewayV1.ReaderSoftwareUpdate()
            update.deviceType = ReaderStore.deviceType(named: try row.decode(String.self, "device_type"))
            update.version = try row.decode(String.self, "version")
            update.components = try row.decode(String.self, "components").split(separator: ",").map(String.init)
            update.durationEstimate = Self.durationEstimate(named: try row.decode(String.self, "duration_estimate"))
            update.requiredAtUnixMs = try row.decode(Int64?.self, "required_at_ms") ?? 0
            update.addedUnixMs = try row.decode(Int64.self, "added_at_ms")
            updates.append(update)
        }
        return updates.sorted { lhs, rhs in
            if lhs.deviceType != rhs.deviceType { return lhs.deviceType.rawValue < rhs.deviceType.rawValue }
            switch (SoftwareVersion(lhs.version), SoftwareVersion(rhs.version)) {
            case (let left?, let right?): return left > right
            case (.some, nil): return true
            case (nil, _): return false
            }
        }
    }

    /// Adds `update` to the account's catalog or replaces the entry of the same device type and
    /// version. True when it replaced one. `audit` is written in the statement, its detail
    /// led by `added` or `replaced`.
    public func add(_ update: ReaderGatewayV1.ReaderSoftwareUpdate, account: String, audit: AuditEntry? = nil) async throws(StoreError) -> Bool {
        let rows = try await client.query(
            (audit == nil ? "" : "WITH put AS (") + """
            INSERT INTO software_updates AS s (account_id, device_type, version, components, duration_estimate, required_at)
            VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::bigint = 0 THEN NULL ELSE to_timestamp($6::bigint / 1000.0) END)
            ON CONFLICT (account_id, device_type, version) DO UPDATE
               SET components = EXCLUDED.components, duration_estimate = EXCLUDED.duration_estimate, required_at = EXCLUDED.required_at
            RETURNING (xmax <> 0) AS replaced
            """ + (audit == nil ? "" : """
            ), logged AS (\(AuditStore.insert(from: "put", parametersFrom: 7, detail: "(CASE WHEN put.replaced THEN 'replaced ' ELSE 'added ' END) || $detail")))
            SELECT replaced FROM put
            """),
            [
                PostgresValue(account), PostgresValue(ReaderStore.deviceTypeName(update.deviceType)), PostgresValue(update.version),
                PostgresValue(update.components.joined(separator: ",")), PostgresValue(Self.durationEstimateName(update.durationEstimate)),
                PostgresValue(update.requiredAtUnixMs),
            ] + (audit.map(AuditStore.parameters) ?? [])
        )
        return try rows.first?.decode(Bool.self, "replaced") ?? false
    }

    /// Removes an entry; false when the account's catalog has none of that device type and version.
    /// `audit` is written in the delete's statement when it removes the entry.
    public func remove(deviceType: ReaderGatewayV1.DeviceType, version: String, account: String, audit: AuditEntry? = nil) async throws(StoreError) -> Bool {
        let delete = "DELETE FROM software_updates WHERE account_id = $1 AND device_type = $2 AND version = $3"
        let parameters = [PostgresValue(account), PostgresValue(ReaderStore.deviceTypeName(deviceType)), PostgresValue(version)]
        guard let audit else { return try await client.execute(delete, parameters) > 0 }
        let rows = try await client.query(
            """
            WITH removed AS (\(delete) RETURNING version), logged AS (\(AuditStore.insert(from: "removed", parametersFrom: 4)))
            SELECT count(*) AS removed FROM removed
            """,
            parameters + AuditStore.parameters(audit)
        )
        return try (rows.first?.decode(Int64.self, "removed") ?? 0) > 0
    }

    /// When `reader` last ran its location's latest version at `location`; nil when never
    /// (as far as the gateway knows) or at another location.
    public func ranLatestAt(reader: String, location: String) async throws(StoreError) -> Int64? {
        let rows = try await client.query(
            """
            SELECT (extract(epoch FROM ran_latest_at) * 1000)::bigint AS at_ms
              FROM reader_update_status WHERE reader_id = $1 AND ran_latest_location_id = $2
            """,
            [PostgresValue(reader), PostgresValue(location)]
        )
        return try rows.first?.decode(Int64?.self, "at_ms")
    }

    /// Records that `reader` runs its location's latest version at `location`, at `atMs`.
    public func recordRanLatest(reader: String, location: String, atMs: Int64) async throws(StoreError) {
        try await client.execute(
            """
            INSERT INTO reader_update_status AS s (reader_id, ran_latest_location_id, ran_latest_at)
            VALUES ($1, $2, to_timestamp($3::bigint / 1000.0))
            ON CONFLICT (reader_id) DO UPDATE SET ran_latest_location_id = EXCLUDED.ran_latest_location_id, ran_latest_at = EXCLUDED.ran_latest_at
            """,
            [PostgresValue(reader), PostgresValue(location), PostgresValue(atMs)]
        )
    }

    /// Records the reader's battery level (nil: no battery).
    public func recordBattery(reader: String, level: Float?) async throws(StoreError) {
        try await client.execute(
            """
            INSERT INTO reader_update_status AS s (reader_id, battery_level, battery_reported_at) VALUES ($1, $2::real, now())
            ON CONFLICT (reader_id) DO UPDATE SET battery_level = EXCLUDED.battery_level, battery_reported_at = EXCLUDED.battery_reported_at
            """,
            [PostgresValue(reader), level.map { PostgresValue(Double($0)) }]
        )
    }

    /// The last recorded battery levels of `readers` (those with one).
    public func batteryLevels(readers: [String]) async throws(StoreError) -> [String: Float] {
        guard !readers.isEmpty else { return [:] }
        let rows = try await client.query(
            "SELECT reader_id, battery_level::float8 AS level FROM reader_update_status WHERE reader_id = ANY(string_to_array($1, ',')) AND battery_level IS NOT NULL",
            [PostgresValue(readers.joined(separator: ","))]
        )
        var levels: [String: Float] = [:]
        for row in rows { levels[try row.decode(String.self, "reader_id")] = Float(try row.decode(Double.self, "level")) }
        return levels
    }

    // MARK: names

    /// The stored and command-line name of a duration band: `less_than_one_minute`, ...
    public static func durationEstimateName(_ estimate: ReaderGatewayV1.UpdateDurationEstimate) -> String {
        guard let name = estimate.protoName else { return "unspecified" }
        return String(name.dropFirst("UPDATE_DURATION_ESTIMATE_".count)).lowercased()
    }

    public static func durationEstimate(named name: String) -> ReaderGatewayV1.UpdateDurationEstimate {
        ReaderGatewayV1.UpdateDurationEstimate.knownValues.first { durationEstimateName($0) == name.lowercased() } ?? .unspecified
    }
}
