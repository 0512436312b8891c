import GatewayPostgres
import GatewayWire

/// A location as the `locations` table holds it.
public struct LocationRecord: Sendable {
    public var id: String
    public var displayName: String
    public var address: ReaderGatewayV1.Address

    public init(id: String, displayName: String, address: ReaderGatewayV1.Address = ReaderGatewayV1.Address()) {
        self.id = id
        self.displayName = displayName
        self.address = address
    }
}

/// The `locations` table. Every read takes the caller's account, so another account's
/// ids read exactly like unknown ones.
public struct LocationStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    public static let locationColumns = "id, display_name, address_line1, address_line2, city, state, postal_code, country"

    public func createLocation(account: String, displayName: String, address: ReaderGatewayV1.Address) async throws(StoreError) -> LocationRecord {
        let id = Secrets.locationID()
        try await client.execute(
            """
            INSERT INTO locations (id, account_id, display_name, address_line1, address_line2, city, state, postal_code, country)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """,
            [
                PostgresValue(id), PostgresValue(account), PostgresValue(displayName), PostgresValue(address.line1),
                PostgresValue(address.line2), PostgresValue(address.city), PostgresValue(address.state),
                PostgresValue(address.postalCode), PostgresValue(address.country),
            ]
        )
        return LocationRecord(id: id, displayName: displayName, address: address)
    }

    /// ``createLocation(account:displayName:address:)`` with `audit` (its location the new
    /// one's id) written in the insert's statement.
    public func createLocation(
        account: String, displayName: String, address: ReaderGatewayV1.Address, audit: AuditEntry
    ) async throws(StoreError) -> LocationRecord {
        let id = Secrets.locationID()
        var entry = audit
        entry.locationID = id
        try await client.execute(
            """
            WITH created AS (
                INSERT INTO locations (id, account_id, display_name, address_line1, address_line2, city, state, postal_code, country)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                RETURNING id
            )
            \(AuditStore.insert(from: "created", parametersFrom: 10))
            """,
            [
                PostgresValue(id), PostgresValue(account), PostgresValue(displayName), PostgresValue(address.line1),
                PostgresValue(address.line2), PostgresValue(address.city), PostgresValue(address.state),
                PostgresValue(address.postalCode), PostgresValue(address.country),
            ] + AuditStore.parameters(entry)
        )
        return LocationRecord(id: id, displayName: displayName, address: address)
    }

    public func location(_ id: String, account: String) async throws(StoreError) -> LocationRecord? {
        let rows = try await client.query(
            "SELECT \(Self.locationColumns) FROM locations WHERE id = $1 AND account_id = $2",
            [PostgresValue(id), PostgresValue(account)]
        )
        return try rows.first.map { row throws(StoreError) in try Self.location(row) }
    }

    public func locations(account: String, after: String?, limit: Int) async throws(StoreError) -> [LocationRecord] {
        let rows = try await client.query(
            "SELECT \(Self.locationColumns) FROM locations WHERE account_id = $1 AND ($2::text IS NULL OR id > $2::text) ORDER BY id LIMIT $3",
            [PostgresValue(account), after.map { PostgresValue($0) }, PostgresValue(limit)]
        )
        var result: [LocationRecord] = []
        for row in rows { result.append(try Self.location(row)) }
        return result
    }

    /// Changes what is given (nil: kept) and writes `audit` in the update's statement when it
    /// changes a location; nil when the account has no such location.
    public func updateLocation(
        _ id: String, account: String, displayName: String?, address: ReaderGatewayV1.Address?, audit: AuditEntry? = nil
    ) async throws(StoreError) -> LocationRecord? {
        let a = address
        let rows = try await client.query(
            (audit == nil ? "" : "WITH updated AS (") + """
            UPDATE locations SET display_name = coalesce($3, display_name),
                address_line1 = CASE WHEN $4::boolean THEN $5 ELSE address_line1 END,
                address_line2 = CASE WHEN $4::boolean THEN $6 ELSE address_line2 END,
                city = CASE WHEN $4::boolean THEN $7 ELSE city END,
                state = CASE WHEN $4::boolean THEN $8 ELSE state END,
                postal_code = CASE WHEN $4::boolean THEN $9 ELSE postal_code END,
                country = CASE WHEN $4::boolean THEN $10 ELSE country END
            WHERE id = $1 AND account_id = $2
            RETURNING \(Self.locationColumns)
            """ + (audit == nil ? "" : "), logged AS (\(AuditStore.insert(from: "updated", parametersFrom: 11))) SELECT * FROM updated"),
            [
                PostgresValue(id), PostgresValue(account), displayName.map { PostgresValue($0) }, PostgresValue(a != nil),
                PostgresValue(a?.line1 ?? ""), PostgresValue(a?.line2 ?? ""), PostgresValue(a?.city ?? ""),
                PostgresValue(a?.state ?? ""), PostgresValue(a?.postalCode ?? ""), PostgresValue(a?.country ?? ""),
            ] + (audit.map(AuditStore.parameters) ?? [])
        )
        return try rows.first.map { row throws(StoreError) in try Self.location(row) }
    }

    public static func location(_ row: PostgresRow) throws(StoreError) -> LocationRecord {
        var address = ReaderGatewayV1.Address()
        address.line1 = try row.decode(String?.self, "address_line1") ?? ""
        address.line2 = try row.decode(String?.self, "address_line2") ?? ""
        address.city = try row.decode(String?.self, "city") ?? ""
        address.state = try row.decode(String?.self, "state") ?? ""
        address.postalCode = try row.decode(String?.self, "postal_code") ?? ""
        address.country = try row.decode(String?.self, "country") ?? ""
        return LocationRecord(id: try row.decode(String.self, "id"), displayName: try row.decode(String.self, "display_name"), address: address)
    }
}
