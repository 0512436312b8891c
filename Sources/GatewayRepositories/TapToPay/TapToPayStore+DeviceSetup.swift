import GatewayDomain
import GatewayPostgres

extension TapToPayStore {
    /// What `device` was last set up for, if it ever was (`tap_to_pay_device_setups`,
    /// migration 13).
    public func deviceSetup(device: String) async throws(StoreError) -> TapToPayDeviceSetupRule.Setup? {
        let rows = try await client.query(
            "SELECT model, os_version FROM tap_to_pay_device_setups WHERE device_id = $1", [PostgresValue(device)]
        )
        guard let row = rows.first else { return nil }
        return TapToPayDeviceSetupRule.Setup(model: try row.decode(String.self, "model"), osVersion: try row.decode(String.self, "os_version"))
    }

    /// Records that `device` is set up for `setup` (replacing what it was set up for before);
    /// returns when, in Unix milliseconds.
    public func recordDeviceSetup(device: String, _ setup: TapToPayDeviceSetupRule.Setup) async throws(StoreError) -> Int64 {
        let rows = try await client.query(
            """
            INSERT INTO tap_to_pay_device_setups (device_id, model, os_version, set_up_at) VALUES ($1, $2, $3, now())
            ON CONFLICT (device_id) DO UPDATE SET model = EXCLUDED.model, os_version = EXCLUDED.os_version, set_up_at = EXCLUDED.set_up_at
            RETURNING (extract(epoch FROM set_up_at) * 1000)::bigint AS set_up_ms
            """,
            [PostgresValue(device), PostgresValue(setup.model), PostgresValue(setup.osVersion)]
        )
        guard let row = rows.first else { throw StoreError(.decodingFailed, "recording a device setup returned no row; check that migration 13 ran") }
        return Int64(try row.decode(Int.self, "set_up_ms"))
    }
}
