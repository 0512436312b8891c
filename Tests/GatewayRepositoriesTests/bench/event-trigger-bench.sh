#!/usr/bin/env bash
# What the event log costs a claim: pgbench running the bare claim (`ownership_claim`, 8 clients
# over 1,000 readers, as the ownership benchmark's pgbench side) with the ownership event trigger
# (migration 0021) enabled and disabled, in interleaved rounds on one throwaway PostgreSQL server,
# so both sides see the same machine. Prints one line per round and the median ratio.
#
#   Tests/GatewayRepositoriesTests/bench/event-trigger-bench.sh <OwnershipBenchmark binary> [ROUNDS] [SECONDS]
set -euo pipefail
BENCH=$1; ROUNDS=${2:-8}; SECONDS_PER_RUN=${3:-5}
source "$(dirname "$0")/../../GatewayServiceTests/bench/postgres.sh"
DIR=$(mktemp -d /tmp/event-trigger-bench.XXXXXX)
trap 'bench_postgres_stop "$DIR"; rm -rf "$DIR"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
bench_postgres_start "$DIR" "$PORT" "max_connections = 100"
# The ownership benchmark migrates a database of its own and seeds its readers and sessions.
"$BENCH" --url "postgresql://postgres@127.0.0.1:$PORT" --clients 8 --seconds 1 --repeat 1 --pgbench "$PGBIN/pgbench" > "$DIR/setup.log" 2>&1
URL="postgresql://postgres@127.0.0.1:$PORT/ownership_bench"
cat > "$DIR/claim.pgbench" <<'SQL'
\set reader random(1, 1000)
\set session :client_id + 1
SELECT * FROM ownership_claim(:reader::text, :session::text, :session::text, false, 1, 1);
SQL
psql_c() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$URL" -c "$1"; }
ratios=()
for round in $(seq 1 "$ROUNDS"); do
  declare -A tps=()
  for mode in ENABLE DISABLE; do
    psql_c "ALTER TABLE ownership_history $mode TRIGGER ownership_history_events"
    out=$("$PGBIN/pgbench" -n -c 8 -j 2 -T "$SECONDS_PER_RUN" -M prepared -f "$DIR/claim.pgbench" "$URL" 2>&1 || true)
    tps[$mode]=$(echo "$out" | awk '/^tps =/ {print $3}')
  done
  ratio=$(python3 -c "print(f'{${tps[ENABLE]} / ${tps[DISABLE]}:.2f}')")
  ratios+=("$ratio")
  echo "round $round: claims/s with events ${tps[ENABLE]%.*}, without ${tps[DISABLE]%.*}, ratio $ratio"
done
psql_c "ALTER TABLE ownership_history ENABLE TRIGGER ownership_history_events"
echo "median ratio (with events / without): $(printf '%s\n' "${ratios[@]}" | sort -n | python3 -c 'import sys, statistics; print(f"{statistics.median(float(l) for l in sys.stdin):.2f}")')"
