#!/usr/bin/env bash
# What the webhook queue costs a claim: pgbench running the bare claim (`ownership_claim`, 8
# clients over 1,000 readers, as event-trigger-bench.sh) with the ownership event written each
# time, and the queue's trigger on `events` (migration 0025) enabled with one endpoint wanting
# every event (so each claim also writes one delivery row) against the same trigger disabled,
# in interleaved rounds on one throwaway PostgreSQL server. Prints one line per round and the
# median ratio.
#
#   Tests/GatewayRepositoriesTests/bench/webhook-queue-bench.sh <OwnershipBenchmark binary> [ROUNDS] [SECONDS]
set -euo pipefail
BENCH=$1; ROUNDS=${2:-8}; SECONDS_PER_RUN=${3:-5}
source "$(dirname "$0")/../../GatewayServiceTests/bench/postgres.sh"
DIR=$(mktemp -d /tmp/webhook-queue-bench.XXXXXX)
chmod 755 "$DIR"  # the postgres user reaches its data directory inside
trap 'bench_postgres_stop "$DIR"; rm -rf "$DIR"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
bench_postgres_start "$DIR" "$PORT" "max_connections = 100"
"$BENCH" --url "postgresql://postgres@127.0.0.1:$PORT" --clients 8 --seconds 1 --repeat 1 --pgbench "$PGBIN/pgbench" > "$DIR/setup.log" 2>&1
URL="postgresql://postgres@127.0.0.1:$PORT/ownership_bench"
cat > "$DIR/claim.pgbench" <<'SQL'
\set reader random(1, 1000)
\set session :client_id + 1
SELECT * FROM ownership_claim(:reader::text, :session::text, :session::text, false, 1, 1);
SQL
psql_c() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$URL" -c "$1"; }
# One endpoint per account of the bench's readers, wanting every event; nothing delivers here,
# so the queue only grows: what is measured is the write.
psql_c "INSERT INTO webhook_endpoints (id, account_id, url, enabled_events, secret)
        SELECT 'we_bench_' || account_id, account_id, 'https://localhost:9/', '{*}', 'whsec_bench' FROM readers GROUP BY account_id"
ratios=()
for round in $(seq 1 "$ROUNDS"); do
  declare -A tps=()
  for mode in ENABLE DISABLE; do
    psql_c "ALTER TABLE events $mode TRIGGER events_webhook_deliveries"
    out=$("$PGBIN/pgbench" -n -c 8 -j 2 -T "$SECONDS_PER_RUN" -M prepared -f "$DIR/claim.pgbench" "$URL" 2>&1 || true)
    tps[$mode]=$(echo "$out" | awk '/^tps =/ {print $3}')
  done
  ratio=$(python3 -c "print(f'{${tps[ENABLE]} / ${tps[DISABLE]}:.2f}')")
  ratios+=("$ratio")
  echo "round $round: claims/s with the webhook queue ${tps[ENABLE]%.*}, without ${tps[DISABLE]%.*}, ratio $ratio"
done
psql_c "ALTER TABLE events ENABLE TRIGGER events_webhook_deliveries"
echo "deliveries queued: $("$PGBIN/psql" -X -A -t "$URL" -c 'SELECT count(*) FROM webhook_deliveries')"
echo "median ratio (with the queue / without): $(printf '%s\n' "${ratios[@]}" | sort -n | python3 -c 'import sys, statistics; print(f"{statistics.median(float(l) for l in sys.stdin):.2f}")')"
