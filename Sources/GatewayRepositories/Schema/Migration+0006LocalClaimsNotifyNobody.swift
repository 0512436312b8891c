import GatewayCore
import GatewayPostgres

extension Migration {
    /// Ownership notices only where another replica must hear.
    ///
    /// A NOTIFY serializes the commit of every transaction that sends one
    /// (PostgreSQL queues notifications in commit order), which made concurrent
    /// claims 2–5 times slower. A claim whose new owner's replica also holds the
    /// reader's link and held the previous owner (or there was none) concerns no
    /// other replica: that replica runs the claim's actions itself. Every other
    /// change — a claim across replicas, a release, a loss, an attach or detach —
    /// is announced as before; replicas also compare memory with the rows every
    /// few seconds, so a notice is never the only way a change is learnt.
    static let v0006LocalClaimsNotifyNobody = Migration(
        version: 6,
        name: "ownership notices only where another replica must hear",
        compatibleFrom: GatewayVersion(0, 1, 0),
        statements: [
            """
            CREATE OR REPLACE FUNCTION reader_ownership_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                claimer text;
                previous text;
            BEGIN
                IF NEW.session_id IS NOT NULL AND NEW.link_node IS NOT NULL
                   AND OLD.link_epoch = NEW.link_epoch AND OLD.link_node IS NOT DISTINCT FROM NEW.link_node THEN
                    SELECT node_id INTO claimer FROM sdk_sessions WHERE id = NEW.session_id;
                    IF claimer = NEW.link_node THEN
                        IF OLD.session_id IS NULL OR OLD.session_id = NEW.session_id THEN
                            RETURN NULL;
                        END IF;
                        SELECT node_id INTO previous FROM sdk_sessions WHERE id = OLD.session_id;
                        IF previous = claimer THEN
                            RETURN NULL;
                        END IF;
                    END IF;
                END IF;
                PERFORM pg_notify(
                    'reader_gateway_ownership',
                    NEW.reader_id || ' ' || NEW.generation || ' ' || coalesce(NEW.session_id, '-') || ' '
                        || NEW.link_epoch || ' ' || coalesce(NEW.link_node, '-')
                );
                RETURN NULL;
            END $$
            """,
        ]
    )
}
