import GatewayCore
import GatewayPostgres

extension Migration {
    /// The event log: one row per thing that happened to an account's fleet, written in the
    /// same transaction as the change it describes (an outbox), read by `FleetAdmin.ListEvents`
    /// and, later, fanned out to webhook endpoints.
    ///
    /// - `events`: append-only for what it says (a trigger refuses UPDATE; DELETE stays possible
    ///   for retention). `seq` orders events as they were written (newest first in every list,
    ///   the cursor of a page); `id` is the public `evt_` + 32 hex digits; `object` is the
    ///   object as it stands after the change (jsonb, shapes in PROTOCOL.md section 20, "Events");
    ///   `reader_id` and `location_id` are what the event concerns (either may be NULL). No
    ///   foreign keys, so events outlive the readers and accounts they name, as the ownership
    ///   history does. A delivery worker later adds one row per (event, endpoint) in a table of
    ///   its own from an `AFTER INSERT` trigger here (same transaction again) and claims those
    ///   rows with `FOR UPDATE SKIP LOCKED`; this table is never locked for delivery.
    /// - `gateway_event_append(account, type, reader, location, object)`: the one writer (also
    ///   called by the gateway for events with no other row: command outcomes, update failures).
    /// - Triggers make the outbox hold for every writer, this release's and 0.1.0's alike: on
    ///   `readers` (insert: `reader.registered`; delete: `reader.deleted`; `status` changing:
    ///   `reader.online` / `reader.offline`; `account_id` changing, a Tap to Pay phone taken by
    ///   another account: deleted for the old account, registered for the new), on
    ///   `ownership_history` (connected, replaced, released / session expired / admin released,
    ///   lost / store rolled back; a refused connect changes nothing and writes none).
    ///   AFTER ROW triggers run at the end of their statement, so an ownership event sees the
    ///   `reader_ownership` row the same statement (a claim's or release's CTE) wrote.
    /// - `tap_to_pay_admit` (0007) is the same function writing `tap_to_pay.account_blocked`
    ///   when it refuses an account, with the same signature, so 0.1.0's refusals write it too.
    ///
    /// An expand step with floor 0.1.0: nothing is dropped or renamed; 0.1.0 never reads the table.
    static let v0021EventLog = Migration(
        version: 21,
        name: "event log: one event per change, written with it",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE TABLE events (
                seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id          text NOT NULL UNIQUE,
                account_id  text NOT NULL,
                type        text NOT NULL,
                reader_id   text,
                location_id text,
                created     timestamptz NOT NULL DEFAULT clock_timestamp(),
                object      jsonb NOT NULL
            )
            """,
            "CREATE INDEX events_account_idx ON events (account_id, seq)",
            "CREATE INDEX events_reader_idx ON events (account_id, reader_id, seq) WHERE reader_id IS NOT NULL",
            "CREATE INDEX events_type_idx ON events (account_id, type, seq)",
            """
            CREATE FUNCTION events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'events are immutable: an event says what happened' USING ERRCODE = 'insufficient_privilege';
            END $$
            """,
            """
            CREATE TRIGGER events_immutable BEFORE UPDATE ON events
                FOR EACH STATEMENT EXECUTE FUNCTION events_immutable()
            """,
            """
            CREATE FUNCTION gateway_event_append(
                p_account text, p_type text, p_reader text, p_location text, p_object jsonb
            ) RETURNS text LANGUAGE plpgsql AS $$
            DECLARE
                new_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
            BEGIN
                INSERT INTO events (id, account_id, type, reader_id, location_id, object)
                VALUES (new_id, p_account, p_type, p_reader, p_location, p_object);
                RETURN new_id;
            END $$
            """,
            """
            CREATE FUNCTION gateway_event_reader(p_reader text) RETURNS jsonb LANGUAGE sql STABLE AS $$
                SELECT jsonb_build_object(
                    'object', 'reader', 'id', r.id, 'serial_number', r.serial_number, 'label', coalesce(r.label, ''),
                    'device_type', r.device_type, 'software_version', coalesce(r.software_version, ''),
                    'location', r.location_id, 'status', r.status,
                    'last_seen_unix_ms', floor(extract(epoch FROM r.last_seen_at) * 1000)::bigint,
                    'registered_unix_ms', floor(extract(epoch FROM r.registered_at) * 1000)::bigint,
                    'ownership', (
                        SELECT jsonb_build_object(
                            'generation', o.generation,
                            'owner', CASE WHEN o.session_id IS NULL THEN NULL ELSE jsonb_build_object(
                                'session_id', o.session_id, 'lane_label', coalesce(o.lane_label, ''),
                                'pos_device_id', (SELECT s.pos_device_id FROM sdk_sessions s WHERE s.id = o.session_id)
                            ) END,
                            'in_transaction', o.command IS NOT NULL
                        )
                        FROM reader_ownership o WHERE o.reader_id = r.id
                    )
                )
                FROM readers r WHERE r.id = p_reader
            $$
            """,
            """
            CREATE FUNCTION readers_events() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    PERFORM gateway_event_append(NEW.account_id, 'reader.registered', NEW.id, NEW.location_id, gateway_event_reader(NEW.id));
                ELSIF TG_OP = 'DELETE' THEN
                    PERFORM gateway_event_append(OLD.account_id, 'reader.deleted', OLD.id, OLD.location_id, jsonb_build_object(
                        'object', 'reader', 'id', OLD.id, 'serial_number', OLD.serial_number, 'label', coalesce(OLD.label, ''),
                        'device_type', OLD.device_type, 'location', OLD.location_id, 'deleted', true
                    ));
                ELSIF OLD.account_id IS DISTINCT FROM NEW.account_id THEN
                    PERFORM gateway_event_append(OLD.account_id, 'reader.deleted', OLD.id, OLD.location_id, jsonb_build_object(
                        'object', 'reader', 'id', OLD.id, 'serial_number', OLD.serial_number, 'label', coalesce(OLD.label, ''),
                        'device_type', OLD.device_type, 'location', OLD.location_id, 'deleted', true
                    ));
                    PERFORM gateway_event_append(NEW.account_id, 'reader.registered', NEW.id, NEW.location_id, gateway_event_reader(NEW.id));
                ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
                    PERFORM gateway_event_append(
                        NEW.account_id, 'reader.' || NEW.status, NEW.id, NEW.location_id, gateway_event_reader(NEW.id)
                    );
                END IF;
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER readers_events AFTER INSERT OR DELETE ON readers
                FOR EACH ROW EXECUTE FUNCTION readers_events()
            """,
            """
            CREATE TRIGGER readers_changed_events AFTER UPDATE OF status, account_id ON readers
                FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.account_id IS DISTINCT FROM NEW.account_id)
                EXECUTE FUNCTION readers_events()
            """,
            """
            CREATE FUNCTION ownership_history_events() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                -- One INSERT, no nested lookups: this runs in every claim's statement.
                INSERT INTO events (id, account_id, type, reader_id, location_id, object)
                SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), r.account_id,
                       CASE NEW.reason::text
                           WHEN 'connected' THEN 'reader.ownership.connected'
                           WHEN 'replaced' THEN 'reader.ownership.replaced'
                           WHEN 'reader_lost' THEN 'reader.ownership.lost'
                           WHEN 'store_rolled_back' THEN 'reader.ownership.lost'
                           ELSE 'reader.ownership.released'
                       END,
                       r.id, r.location_id,
                       jsonb_build_object(
                           'object', 'reader_ownership_change',
                           'reason', NEW.reason::text,
                           'generation', NEW.generation,
                           'owner', CASE WHEN NEW.to_session_id IS NULL THEN NULL ELSE jsonb_build_object(
                               'session_id', NEW.to_session_id, 'lane_label', coalesce(NEW.to_lane_label, ''),
                               'pos_device_id', coalesce(NEW.to_pos_device_id, '')
                           ) END,
                           'previous_owner', CASE WHEN NEW.from_session_id IS NULL THEN NULL ELSE jsonb_build_object(
                               'session_id', NEW.from_session_id, 'lane_label', coalesce(NEW.from_lane_label, ''),
                               'pos_device_id', coalesce(NEW.from_pos_device_id, '')
                           ) END,
                           'reader', jsonb_build_object(
                               'object', 'reader', 'id', r.id, 'serial_number', r.serial_number, 'label', coalesce(r.label, ''),
                               'device_type', r.device_type, 'software_version', coalesce(r.software_version, ''),
                               'location', r.location_id, 'status', r.status
                           )
                       )
                FROM readers r WHERE r.id = NEW.reader_id;
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER ownership_history_events AFTER INSERT ON ownership_history
                FOR EACH ROW WHEN (NEW.reason <> 'refused_busy')
                EXECUTE FUNCTION ownership_history_events()
            """,
            """
            CREATE OR REPLACE FUNCTION tap_to_pay_admit(p_device text, p_account text, p_now timestamptz, p_window interval, p_limit integer)
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
                    -- The account key is the account, or `account/connected account`.
                    PERFORM gateway_event_append(
                        split_part(p_account, '/', 1), 'tap_to_pay.account_blocked', NULL, NULL, jsonb_build_object(
                            'object', 'tap_to_pay_account_block', 'pos_device_id', p_device,
                            'on_behalf_of', nullif(substr(p_account, length(split_part(p_account, '/', 1)) + 2), ''),
                            'accounts_in_window', used, 'limit', p_limit,
                            'retry_unix_ms', (extract(epoch FROM oldest + p_window) * 1000)::bigint
                        )
                    );
                    RETURN QUERY SELECT false, used, oldest + p_window;
                END IF;
            END
            $$
            """,
        ]
    )
}
