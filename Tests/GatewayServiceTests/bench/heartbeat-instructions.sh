#!/usr/bin/env bash
# Instructions per heartbeat (make heartbeat-instructions): N readers (fleet-load, a client
# certificate each, 2 s heartbeats, no lanes) attached to a release replica under callgrind,
# then the same readers to transport-echo under callgrind (client certificates required, as the
# replica does; the floor). Each target's readers attach, leave and attach again (the steady
# state: a first attach writes software versions); instrumentation goes on for a window of
# HB_WINDOW seconds, whole process, and the instructions are divided by the heartbeats the
# readers sent in it. The loops' share is the inclusive count of the event loop's run function.
#
#   Tests/GatewayServiceTests/bench/heartbeat-instructions.sh <release bin dir> <results dir>
#
# HB_READERS (300), HB_WINDOW (20), HB_TARGET gateway|echo|both (both), HB_PORT_BASE (18770).
# valgrind 3.19 cannot read the release binaries' DWARF 5: they are run as copies stripped with
# `objcopy --strip-debug`. It also writes into the mask a program passes to sigsuspend, which
# libdispatch's main thread keeps in read-only memory: sigsuspend-copy.c, preloaded, passes a
# copy. A replica compares up to `reconcileBatch` (1,000) readers' ownership rows with
# PostgreSQL every 2 s off the loops: below 1,000 readers that is one row per heartbeat, so the
# whole-process figure at small N carries one comparison per heartbeat; the loops' does not.
set -euo pipefail
BIN=$1; OUT=$2
N=${HB_READERS:-300}; WINDOW=${HB_WINDOW:-20}; TARGET=${HB_TARGET:-both}
source "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"   # PGBIN, as_postgres, bench_postgres_start/stop
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/heartbeat-instructions.XXXXXX); chmod 755 "$WORK"
PIDS=()
WORKPRE=$(mktemp -d /tmp/heartbeat-preload.XXXXXX); gcc -shared -fPIC -O2 -o "$WORKPRE/sigsuspend-copy.so" "$(dirname "${BASH_SOURCE[0]}")/sigsuspend-copy.c" -ldl
PRELOAD=$WORKPRE/sigsuspend-copy.so
BASE=${HB_PORT_BASE:-18770}
PG_PORT=$BASE; GW_PORT=$((BASE + 1)); GW_INTERNAL=$((BASE + 2)); ECHO_PORT=$((BASE + 3))
cleanup() { for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done; bench_postgres_stop "$WORK"; rm -rf "$WORK" "$WORKPRE"; }
trap cleanup EXIT
wait_port() { for _ in $(seq 1 1200); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 did not open"; return 1; }
heartbeats() { grep -o '"heartbeats":[0-9]*' "$1" | tail -1 | cut -d: -f2; }
attached() { grep -o '"attached":[0-9]*' "$1" 2>/dev/null | tail -1 | cut -d: -f2; }
wait_attached() { for _ in $(seq 1 1200); do [ "$(attached "$1")" = "$N" ] && return 0; sleep 0.5; done; echo "not all attached"; return 1; }
bench_postgres_start "$WORK" $PG_PORT "max_connections = 100"
"$BIN/fleet-load" --mode ca --dir "$WORK/fleet" > "$WORK/ca.json"
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/ca.json" "$1"; }
CERT=$(json certificate); KEY=$(json key); CA=$(json ca)
objcopy --strip-debug "$BIN/reader-gateway" "$WORK/reader-gateway"
objcopy --strip-debug "$BIN/transport-echo" "$WORK/transport-echo"
gateway() { # NAME [valgrind]
  local pre=(); [ "${2:-}" = valgrind ] && pre=(env LD_PRELOAD=$PRELOAD valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/callgrind.gateway.%p")
  ( ulimit -n 20000; exec "${pre[@]}" "$WORK/reader-gateway" --database-url "$DB" --port $GW_PORT --internal-port $GW_INTERNAL --node-name "$1" \
      --tls-cert "$CERT" --tls-key "$KEY" --reader-ca "$CA" --data-dir "$WORK/$1" --log-level warning ) > "$WORK/$1.log" 2>&1 &
  STARTED=$!; PIDS+=($STARTED); wait_port $GW_PORT
}
gateway register; REG=$STARTED
SECRET=$("$BIN/gatewayctl" accounts create --database-url "$DB" --name heartbeats --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret_key"])')
"$BIN/fleet-load" --mode register --dir "$WORK/fleet" --port $GW_PORT --secret-key "$SECRET" --first 1 --count "$N" >/dev/null
kill -TERM $REG; for _ in $(seq 1 300); do kill -0 $REG 2>/dev/null || break; sleep 0.1; done; kill -9 $REG 2>/dev/null || true
sleep 1
measure() { # LABEL PID PORT [fleet-load flags]
  local label=$1 pid=$2 port=$3; shift 3
  # A first attach writes software versions: attach once, leave, attach again (the steady state).
  for pass in 1 2; do
    ( ulimit -n 20000; exec "$BIN/fleet-load" --mode readers --dir "$WORK/fleet" --port $port --first 1 --count "$N" --heartbeat-interval 2s "$@" ) > "$WORK/readers-$label-$pass.log" 2>&1 &
    local readers=$!; PIDS+=($readers)
    wait_attached "$WORK/readers-$label-$pass.log"
    [ $pass = 1 ] && { sleep 3; kill -9 $readers; sleep 3; }
  done
  sleep 6
  local h0; callgrind_control -i on $pid >/dev/null; h0=$(heartbeats "$WORK/readers-$label-2.log")
  sleep "$WINDOW"
  local h1; callgrind_control -d $pid >/dev/null; h1=$(heartbeats "$WORK/readers-$label-2.log"); sleep 2
  kill -9 $readers
  # The dump of the window; the loops' share is the inclusive count of the loop's run function.
  local ir loops
  ir=$(callgrind_annotate "$OUT/callgrind.$label.$pid.1" | awk '/PROGRAM TOTALS/ {gsub(",","",$1); print $1}')
  loops=$(callgrind_annotate --inclusive=yes "$OUT/callgrind.$label.$pid.1" | awk '!found && /GatewayEventLoop0bC0C3runyyF/ {gsub(",","",$1); print $1; found=1}')
  echo "{\"target\":\"$label\",\"readers\":$N,\"window_s\":$WINDOW,\"heartbeats\":$((h1 - h0)),\"instructions\":$ir,\"per_heartbeat\":$(( ir / (h1 - h0) )),\"loops_per_heartbeat\":$(( ${loops:-0} / (h1 - h0) )),\"loadavg\":\"$(cut -d' ' -f1-3 /proc/loadavg)\"}" | tee -a "$OUT/heartbeat-instructions.jsonl"
}
if [ "$TARGET" != echo ]; then
  gateway measured valgrind; GW=$STARTED
  measure gateway $GW $GW_PORT
  kill -9 $GW
fi
if [ "$TARGET" != gateway ]; then
  ( ulimit -n 20000; exec env LD_PRELOAD=$PRELOAD valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/callgrind.echo.%p" "$WORK/transport-echo" --port $ECHO_PORT --certificate "$CERT" --key "$KEY" --loops 2 --idle-timeout 3600s --log-level warning --client-ca "$CA" ) > "$WORK/echo.log" 2>&1 &
  ECHO=$!; PIDS+=($ECHO); wait_port $ECHO_PORT
  measure echo $ECHO $ECHO_PORT --echo --echo-certificates
fi
