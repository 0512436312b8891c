import GatewayCore
import GatewayPostgres

extension Migration {
    /// Tap to Pay: which accounts used which device, and which accounts accepted the terms.
    ///
    /// `tap_to_pay_admit` decides one connect in one statement: it locks the device's row
    /// (so two replicas admitting different accounts on one device take turns), counts the
    /// accounts whose last use is inside the window, and admits the account (recording its
    /// use) when it is one of them or there is room. Each statement of the function sees the
    /// rows committed before it ran, so the second of two racing connects counts the first.
    /// The rule is `TapToPayAccountWindow` (GatewayDomain); a parity test runs both.
    static let v0007TapToPay = Migration(
        version: 7,
        name: "tap to pay: accounts per device, terms per account",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE tap_to_pay_devices (
                device_id text PRIMARY KEY,
                last_connect_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE tap_to_pay_device_accounts (
                device_id text NOT NULL REFERENCES tap_to_pay_devices (device_id) ON DELETE CASCADE,
                account_key text NOT NULL,
                first_used_at timestamptz NOT NULL,
                last_used_at timestamptz NOT NULL,
                PRIMARY KEY (device_id, account_key)
            )
            """,
            """
            CREATE TABLE tap_to_pay_terms (
                account_key text PRIMARY KEY,
                accepted_at timestamptz NOT NULL,
                accepted_on_device text NOT NULL
            )
            """,
            """
            CREATE FUNCTION tap_to_pay_admit(p_device text, p_account text, p_now timestamptz, p_window interval, p_limit integer)
            RETURNS TABLE (admitted boolean, accounts integer, retry_at timestamptz)
            LANGUAGE plpgsql AS $$
            DECLARE
                used integer;
                already boolean;
                oldest timestamptz;
            BEGIN
                INSERT INTO tap_to_pay_devices AS d (device_id, last_connect_at) VALUES (p_device, p_now)
                ON CONFLICT (device_id) DO UPDATE SET last_connect_at = greatest(d.last_connect_at, EXCLUDED.last_connect_at);
                SELECT count(*)::integer, coalesce(bool_or(a.account_key = p_account), false), min(a.last_used_at)
                  INTO used, already, oldest
                  FROM tap_to_pay_device_accounts a
                 WHERE a.device_id = p_device AND a.last_used_at > p_now - p_window;
                IF already OR used < p_limit THEN
                    INSERT INTO tap_to_pay_device_accounts AS a (device_id, account_key, first_used_at, last_used_at)
                    VALUES (p_device, p_account, p_now, p_now)
                    ON CONFLICT (device_id, account_key) DO UPDATE SET last_used_at = greatest(a.last_used_at, EXCLUDED.last_used_at);
                    RETURN QUERY SELECT true, CASE WHEN already THEN used ELSE used + 1 END, NULL::timestamptz;
                ELSE
                    RETURN QUERY SELECT false, used, oldest + p_window;
                END IF;
            END
            $$
            """,
        ]
    )
}
