import GatewayCore
import GatewayPostgres

extension Migration {
    /// Ownership events and one-off appends get ids that grow with time, as the relay's
    /// command outcome events have since `ReaderEventBatcher.appendBatch`.
    ///
    /// `ownership_history_events` (0026) and `gateway_event_append` (0021) drew each event's id
    /// from `gen_random_uuid()`: each insert landed on a random leaf of the ids' unique index
    /// (`events_id_key`), dirtying a page that, after every checkpoint, went whole into the WAL
    /// (`make bench-claim-writes CLAIM_WRITE_PRELOAD=1000000`: 6,890 bytes of WAL a batched claim
    /// over a log of a million events before this migration, 4,742 of them index pages; 2,104
    /// after), and each draw cost about 8,600 instructions in OpenSSL's random source (a claim's
    /// instructions: 689,800 before, 684,400 after, the event's place costing most of the rest).
    ///
    /// - `gateway_event_id(ms, draw, place)`: the id of the event at `place` (from 1) among a
    ///   statement's events: `evt_`, then 32 lowercase hex digits as before — the statement's
    ///   milliseconds (12), its draw (16 random digits) and the place (4). Past 65,535 events
    ///   the place carries into the milliseconds (event 65,536 is `ms + 1` and place 0), so a
    ///   statement's ids increase with the place however many it writes. The draw is never
    ///   changed by the place, so two statements' ids can only meet if their draws do (one in
    ///   2^64 for any two statements, in the same millisecond or not); the unique index refuses
    ///   a duplicate rather than keep it. Ids of statements in different milliseconds increase
    ///   with time (as far as the server's clock does; a statement of more than 65,535 events
    ///   reaches into the next milliseconds'); in the same millisecond the draws order them.
    ///   The rule of `ReaderEventBatcher.appendBatch` for its up to 65,535 events.
    /// - `ownership_history_events`: the same trigger and rows, one draw per statement
    ///   (`clock_timestamp()` and `gen_random_uuid()` once), each event's place its rank in
    ///   history order among the statement's events (refused connects write none).
    /// - `gateway_event_append`: the same signature and rows; its one event is place 1 of a
    ///   draw of its own (a function called once per row of its caller's statement, as
    ///   `readers_events` is, cannot share a draw with the statement's other calls), so its ids
    ///   grow with time across calls in different milliseconds.
    ///
    /// An expand step with floor 0.1.0: the two functions are replaced in place
    /// (`CREATE OR REPLACE`) and one is added, nothing is dropped or renamed; 0.1.0's writes
    /// fire the same trigger and get the same ids. Ids keep their form, so every reader of
    /// them (clients, `GetEvent`, webhook payloads) reads them as before; they stay opaque:
    /// events are ordered by `seq`, not by id.
    static let v0028TimeOrderedEventIds = Migration(
        version: 28,
        name: "event log: ownership events and appends get ids that grow with time",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE OR REPLACE FUNCTION gateway_event_id(p_ms bigint, p_draw text, p_place bigint) RETURNS text
                LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT 'evt_' || lpad(to_hex(p_ms + p_place / 65536), 12, '0') || p_draw || lpad(to_hex(p_place % 65536), 4, '0')
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION ownership_history_events() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                -- One draw per statement: its milliseconds and 16 random hex digits.
                id_ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
                id_draw text := left(md5(gen_random_uuid()::text), 16);
            BEGIN
                -- One INSERT per statement of ownership_history; each reader's row by key.
                INSERT INTO events (id, account_id, type, reader_id, location_id, object)
                SELECT gateway_event_id(id_ms, id_draw, h.place), r.account_id,
                       CASE h.reason::text
                           WHEN 'connected' THEN 'reader.ownership.connected'
                           WHEN 'replaced' THEN 'reader.ownership.replaced'
                           WHEN 'reader_lost' THEN 'reader.ownership.lost'
                           WHEN 'store_rolled_back' THEN 'reader.ownership.lost'
                           ELSE 'reader.ownership.released'
                       END,
                       r.id, r.location_id,
                       jsonb_build_object(
                           'object', 'reader_ownership_change',
                           'reason', h.reason::text,
                           'generation', h.generation,
                           'owner', CASE WHEN h.to_session_id IS NULL THEN NULL ELSE jsonb_build_object(
                               'session_id', h.to_session_id, 'lane_label', coalesce(h.to_lane_label, ''),
                               'pos_device_id', coalesce(h.to_pos_device_id, '')
                           ) END,
                           'previous_owner', CASE WHEN h.from_session_id IS NULL THEN NULL ELSE jsonb_build_object(
                               'session_id', h.from_session_id, 'lane_label', coalesce(h.from_lane_label, ''),
                               'pos_device_id', coalesce(h.from_pos_device_id, '')
                           ) END,
                           'reader', jsonb_build_object(
                               'object', 'reader', 'id', r.id, 'serial_number', r.serial_number, 'label', coalesce(r.label, ''),
                               'device_type', r.device_type, 'software_version', coalesce(r.software_version, ''),
                               'location', r.location_id, 'status', r.status
                           )
                       )
                FROM (
                    SELECT a.*, row_number() OVER (ORDER BY a.id) AS place FROM added a WHERE a.reason <> 'refused_busy'
                ) h
                CROSS JOIN LATERAL (SELECT * FROM readers r WHERE r.id = h.reader_id OFFSET 0) r
                ORDER BY h.id;
                RETURN NULL;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION gateway_event_append(
                p_account text, p_type text, p_reader text, p_location text, p_object jsonb
            ) RETURNS text LANGUAGE plpgsql AS $$
            DECLARE
                new_id text := gateway_event_id(
                    floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, left(md5(gen_random_uuid()::text), 16), 1
                );
            BEGIN
                INSERT INTO events (id, account_id, type, reader_id, location_id, object)
                VALUES (new_id, p_account, p_type, p_reader, p_location, p_object);
                RETURN new_id;
            END $$
            """,
        ]
    )
}
