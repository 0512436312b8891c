#!/usr/bin/env bash
# What a trigger costs a claim: pgbench running the bare claim (`ownership_claim`, 8 clients over
# 1,000 readers, as the ownership benchmark's pgbench side) with TRIGGER on TABLE enabled and
# disabled, in interleaved rounds on one throwaway PostgreSQL server, so both sides see the same
# machine. SETUP, an SQL statement run once before the rounds, gives the trigger something to do
# (the webhook queue's endpoint); WRITTEN, a query counting the rows the trigger wrote, is printed
# after the rounds. Prints one line per round (claims/s and PostgreSQL's CPU per claim, both ways)
# and the medians: the ratio of claims/s and the CPU the trigger adds to each claim. PostgreSQL's
# CPU is its postmaster's and every server process's (backends that ended are counted through the
# postmaster's reaped children), read from /proc over each pgbench run.
#
#   Tests/GatewayRepositoriesTests/bench/trigger-cost-bench.sh <OwnershipBenchmark binary> TABLE TRIGGER LABEL WRITTEN [ROUNDS] [SECONDS] [SETUP]
#
# make bench-event-triggers: the event log's trigger on ownership_history (migration 0021);
# make bench-webhook-queue: the webhook queue's trigger on events (migration 0025), one endpoint
# wanting every event, so each claim also writes one delivery row (nothing delivers here).
set -euo pipefail
BENCH=$1; TABLE=$2; TRIGGER=$3; LABEL=$4; WRITTEN=$5; ROUNDS=${6:-8}; SECONDS_PER_RUN=${7:-5}; SETUP=${8:-}
source "$(dirname "$0")/../../GatewayServiceTests/bench/postgres.sh"
DIR=$(mktemp -d /tmp/trigger-cost-bench.XXXXXX)
chmod 755 "$DIR"  # the postgres user reaches its data directory inside
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
POSTMASTER=$(head -1 "$DIR/pg/postmaster.pid")
TICKS=$(getconf CLK_TCK)
# PostgreSQL's CPU so far, in clock ticks: the postmaster with its reaped children, and the
# server processes still running.
pg_ticks() {
  python3 - "$POSTMASTER" <<'PY'
import os, sys
postmaster = sys.argv[1]
def fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()
total = sum(int(v) for v in fields(postmaster)[11:15])  # utime, stime, cutime, cstime
for pid in os.listdir("/proc"):
    if not pid.isdigit() or pid == postmaster:
        continue
    try:
        f = fields(pid)
    except OSError:
        continue
    if f[1] == postmaster:
        total += int(f[11]) + int(f[12])
print(total)
PY
}
median() { sort -n | python3 -c 'import sys, statistics; print(f"{statistics.median(float(l) for l in sys.stdin):.2f}")'; }
if [ -n "$SETUP" ]; then psql_c "$SETUP"; fi
ratios=(); added=()
for round in $(seq 1 "$ROUNDS"); do
  declare -A tps=() cpu=()
  for mode in ENABLE DISABLE; do
    psql_c "ALTER TABLE $TABLE $mode TRIGGER $TRIGGER"
    before=$(pg_ticks)
    out=$("$PGBIN/pgbench" -n -c 8 -j 2 -T "$SECONDS_PER_RUN" -M prepared -f "$DIR/claim.pgbench" "$URL" 2>&1 || true)
    after=$(pg_ticks)
    tps[$mode]=$(echo "$out" | awk '/^tps =/ {print $3}')
    claims=$(echo "$out" | awk '/number of transactions actually processed/ {print $NF}')
    cpu[$mode]=$(python3 -c "print(f'{($after - $before) / $TICKS * 1e6 / max(${claims%%/*}, 1):.1f}')")
  done
  ratio=$(python3 -c "print(f'{${tps[ENABLE]} / ${tps[DISABLE]}:.2f}')")
  ratios+=("$ratio")
  added+=("$(python3 -c "print(f'{${cpu[ENABLE]} - ${cpu[DISABLE]}:.1f}')")")
  echo "round $round: claims/s with $LABEL ${tps[ENABLE]%.*}, without ${tps[DISABLE]%.*}, ratio $ratio;" \
    "PostgreSQL CPU per claim ${cpu[ENABLE]} µs with, ${cpu[DISABLE]} µs without (load average $(cut -d' ' -f1 /proc/loadavg))"
done
psql_c "ALTER TABLE $TABLE ENABLE TRIGGER $TRIGGER"
echo "rows the trigger wrote ($WRITTEN): $("$PGBIN/psql" -X -A -t "$URL" -c "$WRITTEN")"
echo "median ratio (with $LABEL / without): $(printf '%s\n' "${ratios[@]}" | median);" \
  "median PostgreSQL CPU $LABEL adds per claim: $(printf '%s\n' "${added[@]}" | median) µs"
