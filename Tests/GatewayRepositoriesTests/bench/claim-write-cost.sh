#!/usr/bin/env bash
# What a batched connect writes in PostgreSQL, in units that do not depend on the machine's load:
# BATCHES claim batches of BATCH takeovers each (the statement of `OwnershipStatements.claimBatch`,
# prepared, as the gateway's store client sends it, one transaction per batch), on a throwaway
# server migrated and seeded by the ownership benchmark (readers and sessions of one node, as
# `make service-bench` has them). Every claim takes its reader from another session, as nearly
# every claim does in the service benchmark's connect mode. Prints per claim: WAL bytes and
# records (by kind, from pg_waldump --stats=record), rows inserted and updated per table (HOT
# updates apart), PL/pgSQL function calls (track_functions), buffers hit and dirtied, statements
# run inside the batch's statement (pg_stat_statements, functions and triggers); then the
# plan of one more batch with EXPLAIN (ANALYZE, BUFFERS); with CLAIM_WRITE_CALLGRIND=1, PostgreSQL's
# instructions per claim (callgrind, valgrind installed). PRELOAD events (default none) are put in
# the event log first, as `event-write-cost.sh` does, so that its indexes are as deep as a busy
# fleet's (the CHECKPOINT before measuring then makes each index page a batch touches first write
# its image).
#
#   [CLAIM_WRITE_CALLGRIND=1] Tests/GatewayRepositoriesTests/bench/claim-write-cost.sh <OwnershipBenchmark binary> [BATCHES] [BATCH] [PRELOAD]
#   make bench-claim-writes CLAIM_WRITE_BATCHES=500 CLAIM_WRITE_BATCH=8 [CLAIM_WRITE_PRELOAD=1000000] [CLAIM_WRITE_CALLGRIND=1]
set -euo pipefail
BENCH=$1; BATCHES=${2:-500}; BATCH=${3:-8}; PRELOAD=${4:-0}
source "$(dirname "$0")/../../GatewayServiceTests/bench/postgres.sh"
DIR=$(mktemp -d /tmp/claim-write-cost.XXXXXX)
chmod 755 "$DIR"
trap 'bench_postgres_stop "$DIR"; rm -rf "$DIR"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
bench_postgres_start "$DIR" "$PORT" "max_connections = 100" "track_functions = 'pl'" \
  "shared_preload_libraries = 'pg_stat_statements'" "pg_stat_statements.track = all" "autovacuum = off" "max_wal_size = 4GB"
# The ownership benchmark migrates a database of its own and seeds 1,000 readers and a session per
# client (here 2 × BATCH sessions, so that each batch takes its readers from the other half).
"$BENCH" --url "postgresql://postgres@127.0.0.1:$PORT" --clients $((2 * BATCH)) --seconds 1 --repeat 1 \
  --pgbench "$PGBIN/pgbench" > "$DIR/setup.log" 2>&1
URL="postgresql://postgres@127.0.0.1:$PORT/ownership_bench"
psql_q() { "$PGBIN/psql" -X -A -t -q -v ON_ERROR_STOP=1 "$URL" -c "$1"; }
# The readers 1…BATCH, owned by sessions BATCH+1… before the first batch.
psql_q "SELECT count(*) FROM ownership_claim_set(
          (SELECT array_agg(i::text ORDER BY i) FROM generate_series(1, $BATCH) i),
          (SELECT array_agg((i + $BATCH)::text ORDER BY i) FROM generate_series(1, $BATCH) i),
          (SELECT array_agg((i + $BATCH)::text ORDER BY i) FROM generate_series(1, $BATCH) i),
          array_fill(false, ARRAY[$BATCH]), array_fill(1::bigint, ARRAY[$BATCH]), array_fill(1::bigint, ARRAY[$BATCH]))" >/dev/null
# The log as a busy fleet leaves it (postgres.sh's preload_event_log, as event-write-cost.sh's).
if [ "$PRELOAD" -gt 0 ]; then
  preload_event_log psql_q "$PRELOAD"
  psql_q "VACUUM ANALYZE events"
  echo "the event log held $PRELOAD events more before the batches"
fi
psql_q "CREATE EXTENSION IF NOT EXISTS pg_stat_statements; CHECKPOINT; SELECT pg_stat_reset(); SELECT pg_stat_statements_reset()" >/dev/null
STATEMENT='WITH c AS (SELECT * FROM ownership_claim_set($1::text[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::bigint[]))
SELECT c.*, r.id, r.account_id, r.serial_number, r.label, r.device_type, r.software_version, r.location_id, r.last_seen_at, r.status
FROM c LEFT JOIN LATERAL (
    SELECT * FROM readers r WHERE r.id = ($1::text[])[c.claim_index] AND r.account_id = ($7::text[])[c.claim_index] OFFSET 0
) r ON true'
# The claims of batch N: sessions 1…BATCH on even batches, BATCH+1… on odd ones.
python3 - "$BATCHES" "$BATCH" > "$DIR/measured.sql" 2> "$DIR/explain.sql" <<PY
import sys
batches, size = int(sys.argv[1]), int(sys.argv[2])
print(" ".join("""PREPARE claim_batch(text[], text[], text[], boolean[], bigint[], bigint[], text[]) AS $STATEMENT;""".split()))
def arguments(batch):
    first = 1 if batch % 2 == 0 else size + 1
    readers = ",".join(str(i) for i in range(1, size + 1))
    sessions = ",".join(str(first + i) for i in range(size))
    return (f"'{{{readers}}}', '{{{sessions}}}', '{{{sessions}}}', '{{{','.join(['false'] * size)}}}', "
            f"'{{{','.join(['1'] * size)}}}', '{{{','.join(['1'] * size)}}}', '{{{','.join(['acct_bench'] * size)}}}'")
for batch in range(batches):
    print(f"EXECUTE claim_batch({arguments(batch)});")
for batch in range(batches, batches + 5):
    print(f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE claim_batch({arguments(batch)});", file=sys.stderr)
PY
START=$(psql_q "SELECT pg_current_wal_lsn()")
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$URL" -A -F "|" -f "$DIR/measured.sql" > "$DIR/batches.out"
END=$(psql_q "SELECT pg_current_wal_lsn()")
CLAIMS=$((BATCHES * BATCH))
TAKEOVERS=$(grep -c '^[0-9]*|replaced|' "$DIR/batches.out" || true)
echo "$BATCHES batches of $BATCH claims ($TAKEOVERS of $CLAIMS claims were takeovers)"
psql_q "SELECT 'WAL bytes per claim: ' || round(pg_wal_lsn_diff('$END', '$START') / $CLAIMS, 1)"
echo "WAL records per claim by kind (pg_waldump --stats=record):"
wal_records_per "$CLAIMS" "$DIR/pg/pg_wal" "$START" "$END"
sleep 1.1  # the session's statistics reach the views within a second of its end (PostgreSQL 15)
psql_q "SELECT pg_stat_force_next_flush()" >/dev/null
echo "rows per claim (inserted / updated / HOT-updated):"
psql_q "SELECT format('  %-20s %5s / %5s / %5s', relname, round(n_tup_ins::numeric / $CLAIMS, 2), round(n_tup_upd::numeric / $CLAIMS, 2),
               round(n_tup_hot_upd::numeric / $CLAIMS, 2))
        FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd > 0 ORDER BY relname"
echo "PL/pgSQL calls per claim:"
psql_q "SELECT format('  %-36s %6s', funcname, round(calls::numeric / $CLAIMS, 2)) FROM pg_stat_user_functions ORDER BY funcname"
echo "buffers per claim (hit / dirtied), statements:"
psql_q "SELECT format('  %s / %s, %s statements of the batch, %s nested', round(sum(shared_blks_hit) FILTER (WHERE toplevel)::numeric / $CLAIMS, 1),
               round(sum(shared_blks_dirtied) FILTER (WHERE toplevel)::numeric / $CLAIMS, 2),
               sum(calls) FILTER (WHERE toplevel AND query LIKE 'PREPARE%'), sum(calls) FILTER (WHERE NOT toplevel))
        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
echo "statements run inside the batch's statement (functions and triggers), per claim:"
psql_q "SELECT format('  %5s  %s', round(sum(calls)::numeric / $CLAIMS, 2), left(regexp_replace(query, '\s+', ' ', 'g'), 110))
        FROM pg_stat_statements WHERE NOT toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        GROUP BY query ORDER BY sum(calls) DESC, query"
echo "five more batches (after 20 in the same session, which plan and cache the functions' statements), EXPLAIN (ANALYZE, BUFFERS) of the last:"
{ head -21 "$DIR/measured.sql"; cat "$DIR/explain.sql"; } \
  | "$PGBIN/psql" -X -A -t -q -v ON_ERROR_STOP=1 "$URL" | tail -n +161 > "$DIR/explain.out"
echo "  execution times: $(grep '^Execution Time' "$DIR/explain.out" | awk '{printf "%s ", $3}')ms"
awk '/^Execution Time/ { n++; next } n == 4' "$DIR/explain.out"
# With CLAIM_WRITE_CALLGRIND=1: PostgreSQL's instructions per claim, which no load changes: the server
# stopped, a single-user backend runs 10 and then 60 batches under callgrind on copies of the
# database as it stands; (I(60) - I(10)) / (50 × BATCH).
if [ "${CLAIM_WRITE_CALLGRIND:-0}" = 1 ]; then
  echo "PostgreSQL's instructions per claim (callgrind, single-user backend): $(( $(single_user_instructions "$DIR" "$PORT" ownership_bench) / (50 * BATCH) ))"
fi
