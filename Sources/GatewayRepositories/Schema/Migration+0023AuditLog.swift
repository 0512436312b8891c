import GatewayCore
import GatewayPostgres

extension Migration {
    /// The audit log: one row per administrative change and per refusal for a missing
    /// permission, naming the key that acted, read by `FleetAdmin.ListAuditEvents`.
    ///
    /// - `audit_events`: `seq` orders rows as they were written (newest first in every list,
    ///   the cursor of a page); `id` is the public `aud_` + 32 hex digits; `action` is the
    ///   `FleetAdmin` method (`ForceReleaseReader`) or `ConsoleSignIn` / `ConsoleSignOut`;
    ///   `key_id` and `key_name` the key as it was named then (`key_id` empty for the account
    ///   key of a 0.1.0 console session); `source_address` the caller's `host:port`;
    ///   `user_agent` the console browser's (NULL off the console); `outcome` `ok` or the
    ///   refusal's reason (`PERMISSION_DENIED`, `READER_NOT_FOUND`, ...); `reader_id`,
    ///   `location_id` and `target_id` (a key, an update) what the change concerns; `detail`
    ///   a sentence. A trigger refuses UPDATE (DELETE stays possible for retention). No
    ///   foreign keys, so rows outlive the readers, keys and accounts they name.
    /// - `ownership_history.by_key_id`, `by_key_name`: for `admin_released`, the key that
    ///   forced the release, written by the release's own statement (with its audit row).
    ///   NULL for every other reason and for releases a 0.1.0 binary forced.
    ///
    /// An expand step with floor 0.1.0: a table and nullable columns are added; 0.1.0 never
    /// reads the table and its inserts into `ownership_history` name their columns.
    static let v0023AuditLog = Migration(
        version: 23,
        name: "audit log: who changed what, from where, with what outcome",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE audit_events (
                seq            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id             text NOT NULL UNIQUE DEFAULT 'aud_' || replace(gen_random_uuid()::text, '-', ''),
                account_id     text NOT NULL,
                action         text NOT NULL,
                key_id         text NOT NULL,
                key_name       text NOT NULL,
                source_address text NOT NULL,
                user_agent     text,
                outcome        text NOT NULL,
                reader_id      text,
                location_id    text,
                target_id      text,
                detail         text NOT NULL DEFAULT '',
                created        timestamptz NOT NULL DEFAULT clock_timestamp()
            )
            """,
            "CREATE INDEX audit_events_account_idx ON audit_events (account_id, seq)",
            "CREATE INDEX audit_events_key_idx ON audit_events (account_id, key_id, seq)",
            """
            CREATE FUNCTION audit_events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'audit events are immutable: a row says what happened' USING ERRCODE = 'insufficient_privilege';
            END $$
            """,
            """
            CREATE TRIGGER audit_events_immutable BEFORE UPDATE ON audit_events
                FOR EACH STATEMENT EXECUTE FUNCTION audit_events_immutable()
            """,
            "ALTER TABLE ownership_history ADD COLUMN by_key_id text, ADD COLUMN by_key_name text",
        ]
    )
}
