#!/usr/bin/env bash
# What one re-attach costs, independent of the machine's load: N readers attached to replica r1
# (a second replica, r2, beside it as a survivor that hears the notices) are cut off by kill -9
# of r1, which comes back at once on its port with its node name under callgrind; the readers
# re-attach to it resuming their TLS sessions (one ticket key for both replicas). Reported:
# the restarted replica's instructions from its port opening until every reader is back and the
# dead node is reaped, by function (callgrind_annotate, inclusive), divided by N; r2's
# instructions over the same span (under callgrind too); PostgreSQL's statements, rows and WAL
# bytes in that span (pg_stat_statements, pg_stat_wal).
#
#   Tests/GatewayServiceTests/bench/reattach-profile.sh <release bin dir> <results dir>
#
# REATTACH_READERS (1000), REATTACH_HEARTBEAT the readers' heartbeat interval (5s: few
# heartbeats in the span; the replicas run with --reader-offline-bound 30s, so that a loop
# slowed down by valgrind does not end links as silent), REATTACH_WINDOW the readers' handshakes in flight (4: under valgrind a wider window
# times handshakes out and the readers dial again), REATTACH_PORT_BASE (18670),
# REATTACH_CALLGRIND=0 runs the replicas without valgrind (PostgreSQL's figures only).
# valgrind 3.19 cannot read the release binary's DWARF 5: the replicas run from a copy stripped
# with `objcopy --strip-debug` (function names stay), with sigsuspend-copy.c preloaded (see
# heartbeat-instructions.sh); instrumentation is switched on when the restarted replica's port
# opens (`callgrind_control -i on`) and dumped when the span ends.
set -euo pipefail
BIN=$1; OUT=$2
N=${REATTACH_READERS:-1000}
HEARTBEAT=${REATTACH_HEARTBEAT:-5s}
BASE=${REATTACH_PORT_BASE:-18670}
CALLGRIND=${REATTACH_CALLGRIND:-1}
WINDOW=${REATTACH_WINDOW:-4}
source "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/reattach-profile.XXXXXX)
chmod 755 "$WORK"
PIDS=()
PG_PORT=$BASE; R1=$((BASE + 1)); R2=$((BASE + 3))
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  bench_postgres_stop "$WORK"
  rm -rf "$WORK"
}
trap cleanup EXIT
gcc -shared -fPIC -O2 -o "$WORK/sigsuspend-copy.so" "$(dirname "${BASH_SOURCE[0]}")/sigsuspend-copy.c" -ldl
wait_port() { for _ in $(seq 1 1200); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 did not open"; return 1; }
log() { echo "== $(date -u +%H:%M:%S) $*"; }
psql_q() { "$PGBIN/psql" -X -q -t -A -F' ' -h "$WORK/pgsock" -p $PG_PORT -U postgres -d gateway -c "/* reattach-profile */ $1"; }
attached() { grep -o '"attached":[0-9]*' "$WORK/readers.log" 2>/dev/null | tail -1 | cut -d: -f2; }

log "PostgreSQL with pg_stat_statements"
bench_postgres_start "$WORK" $PG_PORT "max_connections = 100" "shared_preload_libraries = 'pg_stat_statements'" "pg_stat_statements.track = all"
psql_q "CREATE EXTENSION pg_stat_statements" >/dev/null
"$BIN/fleet-load" --mode ca --dir "$WORK/fleet" > "$WORK/ca.json"
CERT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["certificate"])' "$WORK/ca.json")
KEY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$WORK/ca.json")
CA=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ca"])' "$WORK/ca.json")
head -c 80 /dev/urandom > "$WORK/ticket.key"
objcopy --strip-debug "$BIN/reader-gateway" "$WORK/reader-gateway.stripped"

# start_gateway NAME PORT [wrapper...]: a replica (pid in STARTED).
start_gateway() {
  local name=$1 port=$2; shift 2
  ( ulimit -n 20000; exec "$@" "$WORK/reader-gateway.stripped" --database-url "$DB" --port "$port" --internal-port $((port + 1)) --node-name "$name" \
      --tls-cert "$CERT" --tls-key "$KEY" --reader-ca "$CA" --tls-ticket-keys "$WORK/ticket.key" --data-dir "$WORK/$name" \
      --max-handshaking-per-source 1024 --reader-offline-bound 30s --ops-port $((port + 50)) --log-level warning ) > "$WORK/$name.log" 2>&1 &
  STARTED=$!; PIDS+=($STARTED)
  wait_port "$port"
}
CG=(env LD_PRELOAD="$WORK/sigsuspend-copy.so" valgrind --tool=callgrind --instr-atstart=no)
start_gateway r1 $R1; G1=$STARTED
if [ "$CALLGRIND" = 1 ]; then start_gateway r2 $R2 "${CG[@]}" --callgrind-out-file="$WORK/r2.callgrind"; else start_gateway r2 $R2; fi
G2=$STARTED
SECRET=$("$BIN/gatewayctl" accounts create --database-url "$DB" --name profile --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret_key"])')
"$BIN/fleet-load" --mode register --dir "$WORK/fleet" --port $R1 --secret-key "$SECRET" --first 1 --count "$N" >/dev/null
( ulimit -n 20000; exec "$BIN/fleet-load" --mode readers --dir "$WORK/fleet" --port $R1 --first 1 --count "$N" --heartbeat-interval "$HEARTBEAT" --handshake-window "$WINDOW" ) > "$WORK/readers.log" 2>&1 &
READERS=$!; PIDS+=($READERS)
for _ in $(seq 1 600); do [ "$(attached)" -ge "$N" ] 2>/dev/null && break; sleep 0.5; done
log "$(attached) of $N readers attached to r1; kill -9 r1 and restart it"
sleep 3
OLD_NODE=$(psql_q "SELECT node_id FROM gateway_nodes WHERE node_id LIKE 'r1%'")
psql_q "SELECT pg_stat_statements_reset()" >/dev/null
kill -9 $G1; wait $G1 2>/dev/null || true
WAL0=$(psql_q "SELECT wal_bytes FROM pg_stat_wal")
if [ "$CALLGRIND" = 1 ]; then
  start_gateway r1 $R1 "${CG[@]}" --callgrind-out-file="$WORK/r1.callgrind"
  callgrind_control -i on $STARTED >/dev/null; callgrind_control -i on $G2 >/dev/null
else
  start_gateway r1 $R1
fi
G1=$STARTED; t0=$(date +%s.%N)
log "r1 is back (pid $G1): waiting for $N readers and the reap of $OLD_NODE"
for _ in $(seq 1 2400); do
  back=$(psql_q "SELECT count(*) FROM reader_ownership WHERE online AND link_detached_at IS NULL AND link_node <> '$OLD_NODE'")
  gone=$(psql_q "SELECT count(*) FROM gateway_nodes WHERE node_id = '$OLD_NODE'")
  [ "$back" -ge "$N" ] && [ "$gone" = 0 ] && break
  sleep 0.5
done
t1=$(date +%s.%N)
WAL1=$(psql_q "SELECT wal_bytes FROM pg_stat_wal")
# The restarted replica's handshakes (all since it started: the span's, and the refused ones before it).
HANDSHAKES=$(curl -s --max-time 60 "http://127.0.0.1:$((R1 + 50))/metrics" | awk '/^reader_gateway_tls_handshakes_total/ {n += $2} END {print n + 0}')
RESUMED_HS=$(curl -s --max-time 60 "http://127.0.0.1:$((R1 + 50))/metrics" | awk '/^reader_gateway_tls_handshakes_resumed_total/ {n += $2} END {print n + 0}')
CLOSES=$(grep -o '"closes":[0-9]*' "$WORK/readers.log" | tail -1 | cut -d: -f2)
RESUMED=$(grep -o '"resumed":[0-9]*' "$WORK/readers.log" | tail -1 | cut -d: -f2)
log "all $back back, $OLD_NODE reaped after $(python3 -c "print(round($t1 - $t0, 1))") s"
if [ "$CALLGRIND" = 1 ]; then
  callgrind_control -d $G1 >/dev/null; callgrind_control -d $G2 >/dev/null
  sleep 2
fi
psql_q "SELECT calls, rows, round(total_exec_time) AS ms, left(regexp_replace(query, '\s+', ' ', 'g'), 160)
        FROM pg_stat_statements WHERE query NOT LIKE '/* reattach-profile */%' AND query NOT ILIKE '%pg_stat_statements%' ORDER BY calls DESC LIMIT 25" > "$OUT/reattach-statements.txt"
STATEMENTS=$(psql_q "SELECT sum(calls) FROM pg_stat_statements WHERE query NOT LIKE '/* reattach-profile */%' AND query NOT ILIKE '%pg_stat_statements%' AND toplevel")
{
  echo "restarted replica: $HANDSHAKES TLS handshakes, $RESUMED_HS of them resumed"
  echo "readers' links closed $CLOSES, handshakes resumed $RESUMED (both since the first attach)"
  echo "readers $N, span $(python3 -c "print(round($t1 - $t0, 1))") s"
  echo "PostgreSQL: $STATEMENTS top-level statements ($(python3 -c "print(round($STATEMENTS / $N, 2))") per re-attach), WAL $((WAL1 - WAL0)) bytes ($(( (WAL1 - WAL0) / N )) per re-attach)"
  cat "$OUT/reattach-statements.txt"
} | tee "$OUT/reattach-profile.txt"
if [ "$CALLGRIND" = 1 ]; then
  for name in r1 r2; do
    file=$(ls -S "$WORK/$name.callgrind"* | head -1)
    cp "$file" "$OUT/$name.callgrind"
    total=$(callgrind_annotate "$file" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    echo "$name: $total instructions, $(( total / N )) per re-attach" | tee -a "$OUT/reattach-profile.txt"
  done
  # By function, inclusive (recursive cycles left out: their totals count a function once per frame).
  callgrind_annotate --inclusive=yes --threshold=100 "$OUT/r1.callgrind" 2>/dev/null | grep -v "'2" | head -400 > "$OUT/r1-inclusive.txt"
  callgrind_annotate --threshold=95 "$OUT/r1.callgrind" 2>/dev/null | head -80 > "$OUT/r1-self.txt"
  for fn in SSL_do_handshake d2i_SSL_SESSION OSSL_DECODER_CTX_new_for_pkey EVP_PKEY_keygen EVP_PKEY_derive EVP_KDF_derive ASN1_item_ex_i2d \
            'GatewayService15ClusterFollowerV9reconcile' 'ReaderLinkServiceC6attach' 'OwnershipAttachBatcher' 'PostgresClient'; do
    line=$(grep -m1 -F "$fn" "$OUT/r1-inclusive.txt" || true)
    [ -n "$line" ] && echo "r1 inclusive $(echo "$line" | awk '{gsub(",", "", $1); print $1}') $fn: $(( $(echo "$line" | awk '{gsub(",", "", $1); print $1}') / N )) per re-attach"
  done | tee -a "$OUT/reattach-profile.txt"
fi
