import GatewayCore
import GatewayPostgres

extension Migration {
    /// Tap to Pay device setup: the model and operating system version each device was last
    /// set up for. A connect on a device with no row, or whose model or version differs from
    /// its row, must set the device up first (`TapToPayDeviceSetupRule`); the device reports
    /// the setup done and its row is written. Keyed by the device (`pos_device_id`), as the
    /// account rule's rows are, so every replica knows what any other recorded.
    static let v0013TapToPayDeviceSetup = Migration(
        version: 13,
        name: "tap to pay: device setup per device",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE tap_to_pay_device_setups (
                device_id  text PRIMARY KEY,
                model      text NOT NULL,
                os_version text NOT NULL,
                set_up_at  timestamptz NOT NULL
            )
            """,
        ]
    )
}
