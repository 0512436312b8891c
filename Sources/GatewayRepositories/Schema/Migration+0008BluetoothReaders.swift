import GatewayCore
import GatewayPostgres

extension Migration {
    /// Bluetooth readers: which point-of-sale device each is bonded to, and why their links
    /// ended.
    ///
    /// - `bluetooth_bonds`: one row per Bluetooth reader, the device that connected it last
    ///   (`BluetoothBondRule` decides whether another device may take it).
    /// - `mobile_link_endings`: append-only, one row per ended link of a Bluetooth reader,
    ///   with the reason its device reported (or `unknown`) and whether the device was
    ///   reconnecting (the owner kept through the offline bound); the fleet's history shows
    ///   them beside the ownership changes.
    static let v0008BluetoothReaders = Migration(
        version: 8,
        name: "bluetooth readers: bonds to devices, link endings with reasons",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE bluetooth_bonds (
                reader_id text PRIMARY KEY REFERENCES readers (id) ON DELETE CASCADE,
                pos_device_id text NOT NULL,
                bonded_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE mobile_link_endings (
                reader_id text NOT NULL REFERENCES readers (id) ON DELETE CASCADE,
                id bigint GENERATED ALWAYS AS IDENTITY,
                reason text NOT NULL,
                reconnecting boolean NOT NULL,
                at timestamptz NOT NULL DEFAULT clock_timestamp(),
                PRIMARY KEY (reader_id, id)
            )
            """,
        ]
    )
}
