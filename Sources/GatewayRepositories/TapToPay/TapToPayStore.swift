import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayWire

/// Tap to Pay's rows: the accounts each device served (the 3-accounts-per-24-hours rule,
/// decided by PostgreSQL so it holds across replicas), the accounts that accepted the
/// terms, and the device's reader in `readers`.
public struct TapToPayStore: Sendable {
    public let client: PostgresClient
    /// How many unique accounts one device may serve within ``window``.
    public var limit: Int
    /// The rolling window of the account rule.
    public var window: Duration

    public init(client: PostgresClient, limit: Int = 3, window: Duration = .seconds(24 * 3600)) {
        self.client = client
        self.limit = limit
        self.window = window
    }

    /// The serial number of `posDeviceID`'s Tap to Pay reader: `TTP-` and the id in capitals
    /// when it is made of letters, digits and dashes (as serials are), else `TTP-` and a
    /// 64-bit FNV-1a hash of the id in hexadecimal.
    public static func serial(posDeviceID: String) -> String {
        let upper = posDeviceID.uppercased()
        let plain = !upper.isEmpty && upper.count <= 60 && upper.unicodeScalars.allSatisfy {
            ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-"
        }
        if plain { return "TTP-\(upper)" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in posDeviceID.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return "TTP-" + String(hash, radix: 16, uppercase: true)
    }

    /// The account the rule counts: the connected account when payments are made on its
    /// behalf, else the session's account.
    public static func accountKey(account: String, onBehalfOf: String) -> String {
        onBehalfOf.isEmpty ? account : "\(account)/\(onBehalfOf)"
    }

    /// Decides `account`'s connect on `device` in one statement, recording the use when
    /// admitted. `now` is PostgreSQL's clock unless given (tests drive the window with it).
    public func admit(device: String, account: String, now: Date? = nil) async throws(StoreError) -> TapToPayAccountWindow.Admission {
        let rows = try await client.query(
            """
            SELECT admitted, accounts, (extract(epoch FROM retry_at) * 1000)::bigint AS retry_at_ms
              FROM tap_to_pay_admit($1, $2, coalesce($3::timestamptz, now()), make_interval(secs => $4::double precision), $5::integer)
            """,
            [PostgresValue(device), PostgresValue(account), now.map { PostgresValue($0) }, PostgresValue(window.seconds), PostgresValue(limit)]
        )
        guard let row = rows.first else { throw StoreError(.decodingFailed, "tap_to_pay_admit returned no row; check that migration 7 ran") }
        let accounts = try row.decode(Int.self, "accounts")
        if try row.decode(Bool.self, "admitted") { return .admitted(accounts: accounts) }
        return .blocked(accounts: accounts, retryAtMs: Int64(try row.decode(Int.self, "retry_at_ms")))
    }

    /// Whether `account` accepted the Tap to Pay terms, on any device.
    public func termsAccepted(account: String) async throws(StoreError) -> Bool {
        try await !client.query("SELECT 1 FROM tap_to_pay_terms WHERE account_key = $1", [PostgresValue(account)]).isEmpty
    }

    /// Records `account`'s acceptance of the terms on `device`; true when this was the first.
    public func acceptTerms(account: String, device: String) async throws(StoreError) -> Bool {
        try await client.execute(
            """
            INSERT INTO tap_to_pay_terms (account_key, accepted_at, accepted_on_device) VALUES ($1, now(), $2)
            ON CONFLICT (account_key) DO NOTHING
            """,
            [PostgresValue(account), PostgresValue(device)]
        ) > 0
    }

    /// Registers the device's reader to `location` of `account` with a new `credential` (the
    /// previous one stops working). A phone is one reader: it belongs to the account that
    /// connected it last. Nil when `serial` is taken by a reader of another type.
    public func registerReader(serial: String, account: String, location: String, label: String, credential: String) async throws(StoreError) -> ReaderRecord? {
        let type = ReaderStore.deviceTypeName(.tapToPay)
        let rows = try await client.query(
            """
            INSERT INTO readers AS r (id, account_id, serial_number, label, device_type, software_version, location_id, credential_sha256)
            VALUES ($1, $2, $3, $4, $5, '', $6, \(Secrets.hashSQL(7)))
            ON CONFLICT (serial_number) DO UPDATE
               SET account_id = EXCLUDED.account_id, location_id = EXCLUDED.location_id, label = EXCLUDED.label,
                   credential_sha256 = EXCLUDED.credential_sha256
             WHERE r.device_type = EXCLUDED.device_type
            RETURNING \(ReaderStore.readerColumns)
            """,
            [
                PostgresValue(Secrets.readerID()), PostgresValue(account), PostgresValue(serial), PostgresValue(label), PostgresValue(type),
                PostgresValue(location), PostgresValue(credential),
            ]
        )
        return try rows.first.map { row throws(StoreError) in try ReaderStore.reader(row) }
    }
}
