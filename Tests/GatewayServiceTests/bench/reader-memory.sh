#!/usr/bin/env bash
# Memory per attached reader (make reader-memory): N simulated readers (fleet-load, a client
# certificate each, heartbeats every 2 s, no lanes) attach to a release replica; once all are
# attached and a settling pause has passed, the replica's resident growth over its idle size
# (VmRSS in /proc/<pid>/status), divided by N, is the memory per reader. Beside it, in the same
# window, transport-echo holds N TLS connections with the same heartbeat frames (no client
# certificate): the transport's floor. Both figures, their ratio and the load average per round.
#
#   Tests/GatewayServiceTests/bench/reader-memory.sh <release bin dir> <results dir> [<other release bin dir>]
#
# With a third argument the replica of that build (e.g. the main branch's) is measured too,
# alternating with the first from round to round, so that a change is compared with its baseline
# on the same machine in the same run. The echo is always the first build's.
#
# READER_MEMORY_READERS (default 3000), READER_MEMORY_ROUNDS rounds per build (1),
# READER_MEMORY_SETTLE seconds between "all attached" and the reading (10),
# READER_MEMORY_PORT_BASE the first of the run's ports (18670).
# READER_MEMORY_GATEWAY_ARGS: more options for the measured replicas (e.g. `--release-buffers-after off`);
# READER_MEMORY_ECHO_ARGS: more options for the echo (e.g. `--release-buffers-after off`);
# READER_MEMORY_ECHO_CERTIFICATES=1: the echo requires client certificates and its readers present
# theirs, as to the replica (the floor of a mutual-TLS connection; default: no client certificates).
set -euo pipefail
BIN=$1; OUT=$2; OTHER=${3:-}
N=${READER_MEMORY_READERS:-3000}
ROUNDS=${READER_MEMORY_ROUNDS:-1}
SETTLE=${READER_MEMORY_SETTLE:-10}
HEARTBEAT=2s
GATEWAY_ARGS=${READER_MEMORY_GATEWAY_ARGS:-}
ECHO_ARGS=${READER_MEMORY_ECHO_ARGS:-}
ECHO_CERTIFICATES=${READER_MEMORY_ECHO_CERTIFICATES:-0}
source "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"   # PGBIN, as_postgres, bench_postgres_start/stop
mkdir -p "$OUT"
RAW="$OUT/reader-memory.jsonl"; : > "$RAW"
WORK=$(mktemp -d /tmp/reader-memory.XXXXXX)
chmod 755 "$WORK"
PIDS=()
BASE=${READER_MEMORY_PORT_BASE:-18670}
PG_PORT=$BASE; GW_PORT=$((BASE + 1)); GW_INTERNAL=$((BASE + 2)); ECHO_PORT=$((BASE + 3))
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  bench_postgres_stop "$WORK"
  rm -rf "$WORK"
}
trap cleanup EXIT
wait_port() { for _ in $(seq 1 600); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 did not open"; return 1; }
port_free() { for _ in $(seq 1 100); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null || return 0; sleep 0.1; done; echo "port $1 is still taken"; return 1; }
log() { echo "== $(date -u +%H:%M:%S) $*"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
rss_kb() { awk '/VmRSS/ {print $2}' /proc/$1/status; }
stop() { for pid in "$@"; do kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done; }
# stop_gateway PID: SIGTERM (the replica drains and leaves the node directory), SIGKILL after 30 s.
stop_gateway() {
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 1 300); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  stop "$1"
}
# attached PATTERN: the sum of the last status line of every reader process whose log matches.
attached() { local total=0 n; for f in $1; do n=$(grep -o '"attached":[0-9]*' "$f" 2>/dev/null | tail -1 | cut -d: -f2); total=$((total + ${n:-0})); done; echo $total; }
wait_attached() { # PATTERN N TIMEOUT
  for _ in $(seq 1 $(( $3 * 2 ))); do [ "$(attached "$1")" -ge "$2" ] && return 0; sleep 0.5; done
  echo "only $(attached "$1") of $2 attached"; return 1
}

# --- PostgreSQL, the fleet's certificates, the readers registered -------------------------------
log "PostgreSQL ($PGBIN)"
bench_postgres_start "$WORK" $PG_PORT "max_connections = 100"

"$BIN/fleet-load" --mode ca --dir "$WORK/fleet" > "$WORK/ca.json"
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/ca.json" "$1"; }
CERT=$(json certificate); KEY=$(json key); CA=$(json ca)

# start_gateway BIN_DIR NAME: a release replica (pid in STARTED), at most 20,000 descriptors.
start_gateway() {
  port_free $GW_PORT
  ( ulimit -n 20000; exec "$1/reader-gateway" --database-url "$DB" --port $GW_PORT --internal-port $GW_INTERNAL --node-name "$2" \
      --tls-cert "$CERT" --tls-key "$KEY" --reader-ca "$CA" --data-dir "$WORK/$2" --log-level warning $GATEWAY_ARGS ) > "$WORK/$2.log" 2>&1 &
  STARTED=$!; PIDS+=($STARTED)
  wait_port $GW_PORT
}
# start_readers PORT TAG [--echo]: one load process holding all N readers (pid in STARTED).
start_readers() {
  local port=$1 tag=$2; shift 2
  ( ulimit -n 20000; exec "$BIN/fleet-load" --mode readers --dir "$WORK/fleet" --port "$port" --first 1 --count "$N" --heartbeat-interval "$HEARTBEAT" "$@" ) \
    > "$WORK/readers-$tag.log" 2>&1 &
  STARTED=$!; PIDS+=($STARTED)
}

# Registration goes through a replica of its own, so that the measured ones start idle.
log "registering $N readers"
start_gateway "$BIN" register; REGISTRAR=$STARTED
SECRET=$("$BIN/gatewayctl" accounts create --database-url "$DB" --name memory --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret_key"])')
"$BIN/fleet-load" --mode register --dir "$WORK/fleet" --port $GW_PORT --secret-key "$SECRET" --first 1 --count "$N" >/dev/null
stop_gateway "$REGISTRAR"

if [ "$ECHO_CERTIFICATES" = 1 ]; then ECHO_CLIENT_CA="--client-ca $CA"; ECHO_READER_FLAGS=--echo-certificates; else ECHO_CLIENT_CA=""; ECHO_READER_FLAGS=""; fi
log "replica options: ${GATEWAY_ARGS:-(defaults)}; echo options: ${ECHO_ARGS:-(defaults)}; echo client certificates: $ECHO_CERTIFICATES"
BUILDS=("$BIN"); [ -n "$OTHER" ] && BUILDS+=("$OTHER")
for round in $(seq 1 "$ROUNDS"); do
  # With two builds, their order alternates from round to round.
  if [ ${#BUILDS[@]} = 2 ] && [ $((round % 2)) = 0 ]; then order="1 0"; elif [ ${#BUILDS[@]} = 2 ]; then order="0 1"; else order=0; fi
  for index in $order; do
    build=${BUILDS[$index]}; label=$([ "$index" = 0 ] && echo "build" || echo "other build")
    start_gateway "$build" "gw-$round-$index"; GW=$STARTED
    port_free $ECHO_PORT
    ( ulimit -n 20000; exec "$BIN/transport-echo" --port $ECHO_PORT --certificate "$CERT" --key "$KEY" --loops 2 --idle-timeout 3600s --log-level warning $ECHO_CLIENT_CA $ECHO_ARGS ) > "$WORK/echo.log" 2>&1 &
    ECHO=$!; PIDS+=($ECHO)
    wait_port $ECHO_PORT
    sleep 2
    GW_RSS0=$(rss_kb $GW); ECHO_RSS0=$(rss_kb $ECHO)
    log "round $round, $label ($build): $N readers attaching (load average $(loadavg))"
    start_readers $GW_PORT "gw-$round-$index"; READERS=$STARTED
    start_readers $ECHO_PORT "echo-$round-$index" --echo $ECHO_READER_FLAGS; ECHO_READERS=$STARTED
    wait_attached "$WORK/readers-gw-$round-$index.log" "$N" 600
    wait_attached "$WORK/readers-echo-$round-$index.log" "$N" 600
    sleep "$SETTLE"
    python3 - "$label" "$build" "$round" "$N" "$(rss_kb $GW)" "$GW_RSS0" "$(rss_kb $ECHO)" "$ECHO_RSS0" "$(loadavg)" \
        "$(attached "$WORK/readers-gw-$round-$index.log")" <<'PY' | tee -a "$RAW"
import json, sys
a = sys.argv[1:]
n = int(a[3])
gw = (int(a[4]) - int(a[5])) / n; echo = (int(a[6]) - int(a[7])) / n
print(json.dumps({"label": a[0], "bin": a[1], "round": int(a[2]), "readers": n, "attached": int(a[9]),
    "gateway_kb_per_reader": round(gw, 2), "echo_kb_per_connection": round(echo, 2), "ratio": round(gw / echo, 2) if echo > 0 else None,
    "gateway_idle_mb": round(int(a[5]) / 1024, 1), "gateway_rss_mb": round(int(a[4]) / 1024, 1), "loadavg": a[8]}))
PY
    # The readers go first, so that the replica sees their links end before it stops.
    stop "$READERS" "$ECHO_READERS" "$ECHO"
    sleep 2
    stop_gateway "$GW"
  done
done

python3 - "$RAW" "$OUT/reader-memory.md" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
out = ["| replica | readers | KB per reader (median; each round) | transport echo KB per connection (median) | ratio | load average (each round) |",
       "| --- | --- | --- | --- | --- | --- |"]
for label in ["build", "other build"]:
    rs = [r for r in rows if r["label"] == label]
    if not rs:
        continue
    med = lambda k: statistics.median([r[k] for r in rs])
    out.append(f"| {label} | {rs[0]['readers']:,} | {med('gateway_kb_per_reader'):.1f} ({' / '.join(str(r['gateway_kb_per_reader']) for r in rs)}) | "
               f"{med('echo_kb_per_connection'):.1f} | {med('ratio'):.2f}× | {' / '.join(r['loadavg'] for r in rs)} |")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
