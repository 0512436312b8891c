#!/usr/bin/env bash
# What a relayed command's event costs PostgreSQL, in units that do not depend on the machine's
# load: BATCHES statements of BATCH command outcome events each (the statement of
# `ReaderEventBatcher.appendBatch`, prepared, as the gateway's store client sends it, one
# transaction per batch) on a throwaway server migrated and seeded by the ownership benchmark
# (1,000 readers of one account), over an event log that already holds PRELOAD events (a
# realistic size: the indexes are deep and the log does not fit in few pages). A CHECKPOINT
# first, so each page a batch touches for the first time writes its image, as in production.
# Prints per event: WAL bytes and records (by kind, from pg_waldump --stats=record), page
# images, buffers hit and dirtied, the statement's time; then the plans of the event log's reads
# (FleetAdmin.ListEvents: no filter, by type, by reader, by location) at that size with
# EXPLAIN (ANALYZE, BUFFERS); with EVENT_WRITE_CALLGRIND=1, PostgreSQL's instructions per event
# (callgrind on a single-user backend without page images, as the benchmarks' servers run, 10
# then 60 batches: the difference over 50 × BATCH).
#
# EVENT_WRITE_STATEMENT=<file> measures another statement with the same parameters instead;
# EVENT_WRITE_SQL='...' runs before measuring (to price one part: DROP INDEX ..., DROP TRIGGER ...).
#
#   [EVENT_WRITE_CALLGRIND=1] Tests/GatewayRepositoriesTests/bench/event-write-cost.sh <OwnershipBenchmark binary> [BATCHES] [BATCH] [PRELOAD]
#   make bench-event-writes EVENT_WRITE_BATCHES=400 EVENT_WRITE_BATCH=32 EVENT_WRITE_PRELOAD=1000000 [EVENT_WRITE_CALLGRIND=1]
set -euo pipefail
BENCH=$1; BATCHES=${2:-400}; BATCH=${3:-32}; PRELOAD=${4:-1000000}
# Readers the events are about, taken in turn (of the 1,000 seeded): 256, the relay benchmark's largest size.
EVENT_WRITE_READERS=${EVENT_WRITE_READERS:-256}
source "$(dirname "$0")/../../GatewayServiceTests/bench/postgres.sh"
DIR=$(mktemp -d /tmp/event-write-cost.XXXXXX)
chmod 755 "$DIR"
trap 'bench_postgres_stop "$DIR"; rm -rf "$DIR"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
bench_postgres_start "$DIR" "$PORT" "max_connections = 100" \
  "shared_preload_libraries = 'pg_stat_statements'" "pg_stat_statements.track = all" "autovacuum = off" "max_wal_size = 4GB"
"$BENCH" --url "postgresql://postgres@127.0.0.1:$PORT" --clients 2 --seconds 1 --repeat 1 \
  --pgbench "$PGBIN/pgbench" > "$DIR/setup.log" 2>&1
URL="postgresql://postgres@127.0.0.1:$PORT/ownership_bench"
psql_q() { "$PGBIN/psql" -X -A -t -q -v ON_ERROR_STOP=1 "$URL" -c "$1"; }
# The log as a busy fleet leaves it (postgres.sh's preload_event_log).
preload_event_log psql_q "$PRELOAD"
# EVENT_WRITE_SQL: statements run before measuring, to price one part (e.g. an index dropped).
[ -z "${EVENT_WRITE_SQL:-}" ] || psql_q "$EVENT_WRITE_SQL" >/dev/null
psql_q "VACUUM ANALYZE events" && psql_q "CHECKPOINT" && psql_q "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
psql_q "SELECT pg_stat_reset(); SELECT pg_stat_statements_reset()" >/dev/null
# The statement of ReaderEventBatcher.appendBatch (keep the two the same).
STATEMENT="WITH batch AS (
    SELECT lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
           || left(md5(gen_random_uuid()::text), 16) AS id_prefix
)
INSERT INTO events (id, account_id, type, reader_id, location_id, object)
SELECT 'evt_' || b.id_prefix || lpad(to_hex(e.n), 4, '0'), r.account_id, e.type, r.id, r.location_id,
       e.details::jsonb || jsonb_build_object('reader', jsonb_build_object(
           'object', 'reader', 'id', r.id, 'serial_number', r.serial_number, 'label', coalesce(r.label, ''),
           'device_type', r.device_type, 'software_version', coalesce(r.software_version, ''),
           'location', r.location_id, 'status', r.status
       ))
FROM batch b, unnest(\$1::text[], \$2::text[], \$3::text[], \$4::text[]) WITH ORDINALITY AS e (reader, account, type, details, n)
CROSS JOIN LATERAL (SELECT * FROM readers r WHERE r.id = e.reader AND r.account_id = e.account OFFSET 0) r
ORDER BY e.n"
if [ -n "${EVENT_WRITE_STATEMENT:-}" ]; then STATEMENT=$(cat "$EVENT_WRITE_STATEMENT"); fi
# Batch N: BATCH events of readers taken in turn from 1…EVENT_WRITE_READERS, the details a
# succeeded set_reader_display carries.
python3 - "$BATCHES" "$BATCH" "$EVENT_WRITE_READERS" > "$DIR/measured.sql" <<PY
import sys
batches, size, readers_in_turn = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
statement = """$STATEMENT"""
print("PREPARE append_batch(text[], text[], text[], text[]) AS " + " ".join(statement.split()) + ";")
reader = 0
for batch in range(batches):
    readers, details = [], []
    for _ in range(size):
        reader = reader % readers_in_turn + 1
        readers.append(str(reader))
        details.append('"{\\\\"action\\\\": \\\\"set_reader_display\\\\", \\\\"object\\\\": \\\\"reader_action\\\\", '
                       '\\\\"session_id\\\\": \\\\"sess_0123456789abcdef%04d\\\\", \\\\"status\\\\": \\\\"succeeded\\\\"}"' % reader)
    print("EXECUTE append_batch('{%s}', '{%s}', '{%s}', '{%s}');" % (
        ",".join(readers), ",".join(["acct_bench"] * size), ",".join(["reader.action.succeeded"] * size), ",".join(details)))
PY
BEFORE=$(psql_q "SELECT count(*) FROM events")
START=$(psql_q "SELECT pg_current_wal_lsn()")
BEGAN=$(date +%s%N)
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$URL" -A -t -f "$DIR/measured.sql" > "$DIR/batches.out"
ENDED=$(date +%s%N)
END=$(psql_q "SELECT pg_current_wal_lsn()")
EVENTS=$((BATCHES * BATCH))
WRITTEN=$(( $(psql_q "SELECT count(*) FROM events") - BEFORE ))
echo "$BATCHES batches of $BATCH events ($WRITTEN of $EVENTS written) over $PRELOAD events already in the log (load average $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$WRITTEN" = "$EVENTS" ] || { echo "the statement wrote $WRITTEN events of $EVENTS"; exit 1; }
psql_q "SELECT 'WAL bytes per event: ' || round(pg_wal_lsn_diff('$END', '$START') / $EVENTS, 1)"
echo "WAL records per event by kind (pg_waldump --stats=record):"
wal_records_per "$EVENTS" "$DIR/pg/pg_wal" "$START" "$END"
sleep 1.1  # the session's statistics reach the views within a second of its end (PostgreSQL 15)
psql_q "SELECT pg_stat_force_next_flush()" >/dev/null
echo "buffers per event (hit / read / dirtied), time:"
psql_q "SELECT format('  %s / %s / %s, %s ms per batch (wall clock of psql: %s µs per event)', round(sum(shared_blks_hit)::numeric / $EVENTS, 1),
               round(sum(shared_blks_read)::numeric / $EVENTS, 2), round(sum(shared_blks_dirtied)::numeric / $EVENTS, 2),
               round((sum(total_exec_time) / $BATCHES)::numeric, 3), round(($ENDED - $BEGAN) / 1000.0 / $EVENTS, 1))
        FROM pg_stat_statements WHERE toplevel AND query LIKE 'PREPARE%'
          AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
echo "index blocks accessed per event, by index (pg_statio_user_indexes: hit + read):"
psql_q "SELECT format('  %-32s %6s blocks', indexrelname, round((idx_blks_hit + idx_blks_read)::numeric / $EVENTS, 2))
        FROM pg_statio_user_indexes WHERE relname = 'events' ORDER BY indexrelname"
echo "the event log's reads at $((PRELOAD + EVENTS)) events (EXPLAIN (ANALYZE, BUFFERS) of FleetAdmin.ListEvents' statement, a page of 50):"
LIST="SELECT seq, id, account_id, type, reader_id, location_id, created, object::text FROM events WHERE account_id = 'acct_bench'"
for filter in "" "AND type = ANY ('{reader.online}'::text[])" "AND type = ANY ('{reader.action.failed}'::text[])" \
              "AND reader_id = '17'" "AND location_id = 'loc_bench'"; do
  plan=$(psql_q "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) $LIST $filter ORDER BY seq DESC LIMIT 50")
  echo "  filter: ${filter:-none}"
  echo "$plan" | grep -E "Scan|Buffers|Execution" | head -4 | sed 's/^/    /'
done
if [ "${EVENT_WRITE_CALLGRIND:-0}" = 1 ]; then
  echo "PostgreSQL's instructions per event (callgrind, single-user backend): $(( $(single_user_instructions "$DIR" "$PORT" ownership_bench) / (50 * BATCH) ))"
  # EVENT_WRITE_KEEP=<dir>: the callgrind files kept there (callgrind_annotate them).
  [ -z "${EVENT_WRITE_KEEP:-}" ] || { mkdir -p "$EVENT_WRITE_KEEP" && cp "$DIR"/callgrind-*.out "$EVENT_WRITE_KEEP"/; }
fi
