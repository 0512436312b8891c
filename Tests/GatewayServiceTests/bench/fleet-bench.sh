#!/usr/bin/env bash
# Fleet scale (make bench-fleet): N simulated readers attached to one replica, heartbeating at
# reader-sim's default interval (2 s), N/10 lanes holding sessions and now and then connecting
# one reader of their location and relaying a command to it; beside it, in the same run and the
# same windows, the transport floor: transport-echo holding N TLS connections with the same
# heartbeat frames. Then three replicas behind nginx stream with the largest N, and a reconnect
# storm: kill -9 the replica holding the most readers, time until every reader is re-attached
# elsewhere with its owner kept and every lane resumed.
#
#   Tests/GatewayServiceTests/bench/fleet-bench.sh <release bin dir> <results dir>
#
# FLEET_SIZES (default "1000 5000 15000"), FLEET_WINDOW seconds per window (20), FLEET_ROUNDS
# windows per size (3; medians reported), FLEET_CLUSTER=0 skips the three-replica part,
# FLEET_SINGLE=0 the one-replica part (the readers are still registered through it),
# FLEET_PORT_BASE the first of the run's ports (18570), FLEET_PER_PROCESS readers per load process (5000: each process stays under 20,000 descriptors),
# FLEET_WATCH=0 skips the windows with a WatchFleet watcher (by default every round has one
# window without a watcher and one with, in alternating order: the watcher's cost is their
# difference), FLEET_STORM_SECONDS how long the storm is followed at most (90),
# FLEET_STORM_VICTIM=all puts every reader and lane on the first replica before the storm (nginx's
# other two upstreams are backups until it dies), so that the killed replica holds all N readers
# and every session: `FLEET_SIZES=5000 FLEET_SINGLE=0 FLEET_STORM_VICTIM=all` is the storm of
# 5,000 readers without 15,000 attached (default "share": round robin, the victim holds a third).
# FLEET_CLUSTER_READERS runs the three-replica part with that many readers (default the largest
# of FLEET_SIZES; more are registered through the first replica), e.g. 45000: three replicas of
# 15,000 readers, 4,500 lanes. Above 15,000 nginx gets one worker per 15,000 descriptors and a
# listen port per 10,000 readers (one loopback address has about 28,000 ephemeral ports per
# destination), the reader processes spread over the ports, the lanes on the last one
# (FLEET_NGINX_WORKERS and FLEET_LB_PORTS set both at any size). FLEET_HANDSHAKE_WINDOW: TLS
# handshakes each reader process of the three-replica part keeps in flight (64).
# FLEET_RESTART=1 (the default above 15,000 readers) restarts the killed replica at once on its
# ports with its node name, as a Kubernetes Deployment restarts a pod, and nginx balances with
# least_conn, so the re-attaching readers fill the restarted replica rather than push the two
# survivors past their 20,000 descriptors. The storm row then has the restart time, the
# re-attach times of the killed replica's readers (sampled each poll: median, p99, slowest),
# statements per re-attached reader and CPU seconds of replicas, load tools and PostgreSQL.
# The replicas share one session ticket key (--tls-ticket-keys) and the readers offer their last
# TLS session when they re-attach (a resumed handshake, no certificate exchange); FLEET_RESUME=0
# runs the storm with full handshakes only (no shared key, fleet-load --no-resume).
# FLEET_LANES_PER_10=0 runs the one-replica windows without lanes (heartbeating readers alone,
# beside the echo's: what an idle fleet costs); the default is one lane per 10 readers.
#
# The storm checks the invariants `make chaos` checks, in PostgreSQL, while it runs and after:
# no generation or link epoch ever goes back (sampled every poll), every owner before the kill
# is the owner after it and nobody else took a reader meanwhile, no session owns two readers,
# no reader is owned by a closed session or linked to a replica that is not registered, and the
# history has no gap (generations 1, 2, 3 ... each starting from the owner the previous change
# left) and ends with the row's owner. Every statement the script itself sends starts with
# /* fleet-bench */, and the PostgreSQL figures leave those out.
set -euo pipefail
BIN=$1; OUT=$2
SIZES=${FLEET_SIZES:-1000 5000 15000}
WINDOW=${FLEET_WINDOW:-20}
ROUNDS=${FLEET_ROUNDS:-3}
CLUSTER=${FLEET_CLUSTER:-1}
SINGLE=${FLEET_SINGLE:-1}
PER_PROCESS=${FLEET_PER_PROCESS:-5000}
WATCH=${FLEET_WATCH:-1}
STORM_SECONDS=${FLEET_STORM_SECONDS:-90}
STORM_VICTIM=${FLEET_STORM_VICTIM:-share}
CLUSTER_READERS=${FLEET_CLUSTER_READERS:-}
HEARTBEAT=${FLEET_HEARTBEAT:-2s}
LANE_PERIOD=${FLEET_LANE_PERIOD:-20s}
LANES_PER_10=${FLEET_LANES_PER_10:-1}; export LANES_PER_10
source "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"   # PGBIN, as_postgres, bench_postgres_start/stop
mkdir -p "$OUT"
RAW="$OUT/fleet.jsonl"; : > "$RAW"
WORK=$(mktemp -d /tmp/fleet-bench.XXXXXX)
chmod 755 "$WORK"
PIDS=()
# FLEET_PORT_BASE moves every port of the run (PostgreSQL, replicas, echo, nginx) together, so
# that two runs (or another benchmark using the defaults) can share a machine.
BASE=${FLEET_PORT_BASE:-18570}
PG_PORT=$BASE; GW_PORT=$((BASE + 1)); ECHO_PORT=$((BASE + 3)); LB_PORT=$((BASE + 5))
R1=$((BASE + 21)); R2=$((BASE + 23)); R3=$((BASE + 25))
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
  bench_postgres_stop "$WORK"
  rm -rf "$WORK"
}
trap cleanup EXIT
wait_port() { for _ in $(seq 1 600); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 did not open"; return 1; }
log() { echo "== $(date -u +%H:%M:%S) $*"; }
psql_q() { "$PGBIN/psql" -X -q -t -A -F' ' -h "$WORK/pgsock" -p $PG_PORT -U postgres -d gateway -c "/* fleet-bench */ $1"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# --- PostgreSQL with pg_stat_statements --------------------------------------------------------
log "PostgreSQL with pg_stat_statements ($PGBIN)"
bench_postgres_start "$WORK" $PG_PORT "max_connections = 200" "shared_buffers = 256MB" \
  "shared_preload_libraries = 'pg_stat_statements'" "pg_stat_statements.track = all"
psql_q "CREATE EXTENSION pg_stat_statements" >/dev/null

"$BIN/fleet-load" --mode ca --dir "$WORK/fleet" > "$WORK/ca.json"
TLS="$WORK/fleet/tls"
CERT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["certificate"])' "$WORK/ca.json")
KEY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$WORK/ca.json")
CA=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ca"])' "$WORK/ca.json")
# One session ticket key for every replica (as the chart's tls.ticketKeys Secret gives them).
RESUME=${FLEET_RESUME:-1}
TICKETS=(); NO_RESUME=()
if [ "$RESUME" = 1 ]; then
  head -c 80 /dev/urandom > "$WORK/ticket.key"
  TICKETS=(--tls-ticket-keys "$WORK/ticket.key")
else
  NO_RESUME=(--no-resume)
fi

# start_gateway NAME PORT INTERNAL_PORT [extra args]: a release replica (pid in STARTED), at most 20,000 descriptors.
start_gateway() {
  local name=$1 port=$2 internal=$3; shift 3
  if (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null; then echo "port $port is taken by another process: set FLEET_PORT_BASE"; exit 1; fi
  ( ulimit -n 20000; exec "$BIN/reader-gateway" --database-url "$DB" --port "$port" --internal-port "$internal" --node-name "$name" \
      --tls-cert "$CERT" --tls-key "$KEY" --reader-ca "$CA" "${TICKETS[@]}" --data-dir "$WORK/$name" --log-level warning "$@" ) > "$WORK/$name.log" 2>&1 &
  STARTED=$!; PIDS+=($STARTED)
  wait_port "$port"
}
# PostgreSQL's CPU ticks: the postmaster's own and its reaped children's (backends that ended),
# plus every live child's.
pg_ticks() {
  local main total child
  main=$(head -1 "$WORK/pg/postmaster.pid")
  total=$(awk '{print $14 + $15 + $16 + $17}' /proc/$main/stat)
  for child in $(pgrep -P "$main"); do [ -r /proc/$child/stat ] && total=$((total + $(awk '{print $14 + $15}' /proc/$child/stat 2>/dev/null || echo 0))); done
  echo $total
}
cpu_ticks() { local total=0; for pid in "$@"; do [ -r /proc/$pid/stat ] && total=$((total + $(awk '{print $14 + $15}' /proc/$pid/stat))); done; echo $total; }
rss_kb() { awk '/VmRSS/ {print $2}' /proc/$1/status; }
fds() { ls /proc/$1/fd | wc -l; }
# PostgreSQL counters: statements, of which writes, execution ms, WAL bytes, then the periodic
# ownership comparison (the snapshot statement): calls, ms, rows.
# Then the fleet watchers' work: fleet-change NOTIFYs (calls of the replicas' own
# `pg_notify($1, $2)`, not the ownership trigger's), the watched accounts' full
# comparison (calls, ms, rows) and the hinted re-reads (calls, rows).
GATEWAY_STATEMENTS="query NOT LIKE '/* fleet-bench */%' AND query NOT ILIKE '%pg_stat_statements%'"
FULL_FLEET="query ILIKE '%AS in_transaction%' AND query ILIKE '%r.account_id = \$1%'"
HINTED_FLEET="query ILIKE '%AS in_transaction%' AND query ILIKE '%r.id = ANY%'"
pg_counters() {
  psql_q "SELECT (SELECT coalesce(sum(calls),0) FROM pg_stat_statements WHERE $GATEWAY_STATEMENTS),
                 (SELECT coalesce(sum(calls),0) FROM pg_stat_statements WHERE $GATEWAY_STATEMENTS AND (query ~* '^\s*(INSERT|UPDATE|DELETE|WITH)' OR query ILIKE '%claim%')),
                 (SELECT round(coalesce(sum(total_exec_time),0)::numeric,1) FROM pg_stat_statements WHERE $GATEWAY_STATEMENTS),
                 (SELECT wal_bytes FROM pg_stat_wal),
                 (SELECT coalesce(sum(calls),0) FROM pg_stat_statements WHERE query ILIKE '%link_detached_at IS NOT NULL AS detached%'),
                 (SELECT round(coalesce(sum(total_exec_time),0)::numeric,1) FROM pg_stat_statements WHERE query ILIKE '%link_detached_at IS NOT NULL AS detached%'),
                 (SELECT coalesce(sum(rows),0) FROM pg_stat_statements WHERE query ILIKE '%link_detached_at IS NOT NULL AS detached%'),
                 (SELECT coalesce(sum(calls),0) FROM pg_stat_statements WHERE query = 'SELECT pg_notify(\$1, \$2)'),
                 (SELECT coalesce(sum(calls),0) FROM pg_stat_statements WHERE $FULL_FLEET),
                 (SELECT round(coalesce(sum(total_exec_time),0)::numeric,1) FROM pg_stat_statements WHERE $FULL_FLEET),
                 (SELECT coalesce(sum(rows),0) FROM pg_stat_statements WHERE $FULL_FLEET),
                 (SELECT coalesce(sum(calls),0) FROM pg_stat_statements WHERE $HINTED_FLEET),
                 (SELECT coalesce(sum(rows),0) FROM pg_stat_statements WHERE $HINTED_FLEET)"
}
# attached PATTERN: the sum of the last status line of every reader process whose log matches.
# closes PATTERN: the readers' links that ended or failed (handshakes included), summed the same way.
closes() { local total=0 n; for f in $1; do n=$(grep -o '"closes":[0-9]*' "$f" 2>/dev/null | tail -1 | cut -d: -f2); total=$((total + ${n:-0})); done; echo $total; }
attached() { local total=0 n; for f in $1; do n=$(grep -o '"attached":[0-9]*' "$f" 2>/dev/null | tail -1 | cut -d: -f2); total=$((total + ${n:-0})); done; echo $total; }
wait_attached() { # PATTERN N TIMEOUT
  for _ in $(seq 1 $(( $3 * 2 ))); do [ "$(attached "$1")" -ge "$2" ] && return 0; sleep 0.5; done
  echo "only $(attached "$1") of $2 attached"; return 1
}
# start_readers FIRST COUNT PORT TAG [--echo]: load processes of at most PER_PROCESS readers.
LOADERS=()
start_readers() {
  local first=$1 count=$2 port=$3 tag=$4; shift 4
  local at=$first end=$(( first + count ))
  while [ $at -lt $end ]; do
    local chunk=$(( end - at < PER_PROCESS ? end - at : PER_PROCESS ))
    ( ulimit -n 20000; exec "$BIN/fleet-load" --mode readers --dir "$WORK/fleet" --port "$port" --first $at --count $chunk --heartbeat-interval "$HEARTBEAT" "${NO_RESUME[@]}" "$@" ) \
      > "$WORK/readers-$tag-$at.log" 2>&1 &
    PIDS+=($!); LOADERS+=($!)
    at=$(( at + chunk ))
  done
}

# --- one replica beside the transport floor ----------------------------------------------------
log "one replica, the transport echo beside it (load average $(loadavg))"
start_gateway gw1 $GW_PORT $((BASE + 11)); GW=$STARTED
( ulimit -n 20000; exec "$BIN/transport-echo" --port $ECHO_PORT --certificate "$CERT" --key "$KEY" --loops 2 --idle-timeout 3600s --log-level warning ) > "$WORK/echo.log" 2>&1 &
ECHO=$!; PIDS+=($ECHO)
wait_port $ECHO_PORT
SECRET=$("$BIN/gatewayctl" accounts create --database-url "$DB" --name fleet --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret_key"])')
sleep 2
GW_RSS0=$(rss_kb $GW); ECHO_RSS0=$(rss_kb $ECHO)
registered=0
for N in $SIZES; do
  log "N=$N: registering $((N - registered)) more readers"
  "$BIN/fleet-load" --mode register --dir "$WORK/fleet" --port $GW_PORT --secret-key "$SECRET" --first $((registered + 1)) --count $((N - registered)) >/dev/null
  if [ "$SINGLE" != 0 ]; then
    start_readers $((registered + 1)) $((N - registered)) $GW_PORT gw
    start_readers $((registered + 1)) $((N - registered)) $ECHO_PORT echo --echo
  fi
  registered=$N
  [ "$SINGLE" = 0 ] && continue
  wait_attached "$WORK/readers-gw-*.log" $N 300
  wait_attached "$WORK/readers-echo-*.log" $N 300
  log "N=$N: all attached (gateway $(fds $GW) descriptors); lanes $((N * LANES_PER_10 / 10)) opening"
  if [ "$LANES_PER_10" -gt 0 ]; then
    "$BIN/fleet-load" --mode lanes --dir "$WORK/fleet" --port $GW_PORT --count $((N * LANES_PER_10 / 10)) --period "$LANE_PERIOD" --warmup 10s \
      --duration 3600s > "$WORK/lanes-$N.log" 2>&1 &
    LANES=$!; PIDS+=($LANES)
    for _ in $(seq 1 600); do grep -q measuring "$WORK/lanes-$N.log" && break; sleep 0.2; done
  else
    # No lanes: a process that does nothing stands in for them (its CPU is counted as theirs).
    sleep 3600 & LANES=$!; PIDS+=($LANES)
    : > "$WORK/lanes-$N.log"
  fi
  for round in $(seq 1 "$ROUNDS"); do
    # With FLEET_WATCH, each round has a window without a watcher and one with, their order
    # alternating from round to round.
    if [ "$WATCH" != 1 ]; then order=0; elif [ $((round % 2)) = 1 ]; then order="0 1"; else order="1 0"; fi
    for watched in $order; do
      WATCHER=""
      if [ "$watched" = 1 ]; then
        "$BIN/fleet-load" --mode watch --dir "$WORK/fleet" --port $GW_PORT --secret-key "$SECRET" > "$WORK/watch-$N-$round.log" 2>&1 &
        WATCHER=$!; PIDS+=($WATCHER)
        # The window starts once the snapshot is in, and a full comparison has run since.
        for _ in $(seq 1 300); do
          [ "$(grep -o '"snapshot_readers":[0-9]*' "$WORK/watch-$N-$round.log" | tail -1 | cut -d: -f2)" -ge "$N" ] 2>/dev/null && break; sleep 0.2
        done
        sleep 3
      fi
      changes0=$(grep -o '"changes":[0-9]*' "$WORK/watch-$N-$round.log" 2>/dev/null | tail -1 | cut -d: -f2 || true)
      g0=$(cpu_ticks $GW); e0=$(cpu_ticks $ECHO); l0=$(cpu_ticks "${LOADERS[@]}" $LANES); p0=$(pg_counters); t0=$(date +%s.%N)
      sleep "$WINDOW"
      g1=$(cpu_ticks $GW); e1=$(cpu_ticks $ECHO); l1=$(cpu_ticks "${LOADERS[@]}" $LANES); p1=$(pg_counters); t1=$(date +%s.%N)
      changes=0
      if [ -n "$WATCHER" ]; then
        changes1=$(grep -o '"changes":[0-9]*' "$WORK/watch-$N-$round.log" | tail -1 | cut -d: -f2 || true)
        changes=$(( ${changes1:-0} - ${changes0:-0} ))
        kill "$WATCHER" 2>/dev/null || true; wait "$WATCHER" 2>/dev/null || true
        sleep 3  # the replica forgets the watcher before the next window
      fi
      python3 - "$N" "$round" "$t0" "$t1" "$g0" "$g1" "$e0" "$e1" "$l0" "$l1" "$p0" "$p1" "$(rss_kb $GW)" "$GW_RSS0" "$(rss_kb $ECHO)" "$ECHO_RSS0" "$(fds $GW)" "$(loadavg)" "$watched" "${changes:-0}" <<'PY' | tee -a "$RAW"
import json, os, sys
a = sys.argv[1:]
n, rnd = int(a[0]), int(a[1]); seconds = float(a[3]) - float(a[2])
g, e, l = (int(a[5]) - int(a[4])), (int(a[7]) - int(a[6])), (int(a[9]) - int(a[8]))
p0 = [float(x) for x in a[10].split()]; p1 = [float(x) for x in a[11].split()]
d = [y - x for x, y in zip(p0, p1)]
gw_cpu = g / seconds; echo_cpu = e / seconds  # ticks are 1/100 s: ticks per second = % of a core
print(json.dumps({"label": "fleet one replica", "readers": n, "lanes": n * int(os.environ.get("LANES_PER_10", "1")) // 10, "round": rnd, "watcher": a[18] == "1", "seconds": round(seconds, 2),
    "gateway_cpu_pct": round(gw_cpu, 2), "echo_cpu_pct": round(echo_cpu, 2), "ratio": round(gw_cpu / echo_cpu, 2) if echo_cpu else None,
    "load_cpu_pct": round(l / seconds, 2),
    "gateway_kb_per_reader": round((int(a[12]) - int(a[13])) / n, 2), "echo_kb_per_connection": round((int(a[14]) - int(a[15])) / n, 2),
    "gateway_rss_mb": round(int(a[12]) / 1024, 1), "gateway_fds": int(a[16]),
    "pg_statements_per_s": round(d[0] / seconds, 1), "pg_writes_per_s": round(d[1] / seconds, 1), "pg_exec_ms_per_s": round(d[2] / seconds, 2),
    "wal_bytes_per_s": round(d[3] / seconds), "compare_per_s": round(d[4] / seconds, 2),
    "compare_ms_each": round(d[5] / d[4], 2) if d[4] else 0, "compare_rows_each": round(d[6] / d[4]) if d[4] else 0,
    "fleet_notify_per_s": round(d[7] / seconds, 2), "watch_full_per_s": round(d[8] / seconds, 2),
    "watch_full_ms_each": round(d[9] / d[8], 2) if d[8] else 0, "watch_full_rows_per_s": round(d[10] / seconds),
    "watch_hinted_per_s": round(d[11] / seconds, 2), "watch_hinted_rows_per_s": round(d[12] / seconds, 1),
    "watch_events_per_s": round(int(a[19]) / seconds, 1),
    "loadavg": a[17]}))
PY
    done
  done
  kill -TERM $LANES 2>/dev/null || true
  wait $LANES || true
  grep '"connects"' "$WORK/lanes-$N.log" | sed "s/^{/{\"label\": \"fleet lanes\", \"readers\": $N, /" | tee -a "$RAW"  || true
done
if [ "$CLUSTER" = 1 ] && [ -n "$CLUSTER_READERS" ] && [ "$CLUSTER_READERS" -gt "$registered" ]; then
  log "registering $((CLUSTER_READERS - registered)) more readers for the three replicas"
  "$BIN/fleet-load" --mode register --dir "$WORK/fleet" --port $GW_PORT --secret-key "$SECRET" --first $((registered + 1)) --count $((CLUSTER_READERS - registered)) >/dev/null
  registered=$CLUSTER_READERS
fi
kill -9 ${LOADERS[@]+"${LOADERS[@]}"} $ECHO $GW 2>/dev/null || true
LOADERS=()
sleep 2

# --- three replicas behind nginx, then the reconnect storm -------------------------------------
if [ "$CLUSTER" = 1 ]; then
  N=${CLUSTER_READERS:-$registered}
  RESTART=${FLEET_RESTART:-$([ "$N" -gt 15000 ] && echo 1 || echo 0)}
  # Up to 15,000 readers: two nginx workers and one listen port, as before. Above: a worker per
  # 15,000 descriptors (two per proxied connection, each worker under its 19,000) and a listen
  # port per 10,000 readers (FLEET_NGINX_WORKERS and FLEET_LB_PORTS set them at any size).
  WORKERS=2; PORT_COUNT=1
  [ "$N" -gt 15000 ] && WORKERS=$(( (2 * (N + N / 10) + 14999) / 15000 )) && PORT_COUNT=$(( (N + 9999) / 10000 ))
  WORKERS=${FLEET_NGINX_WORKERS:-$WORKERS}; PORT_COUNT=${FLEET_LB_PORTS:-$PORT_COUNT}
  LB_PORTS=($LB_PORT); for i in $(seq 1 $((PORT_COUNT - 1))); do LB_PORTS+=($((BASE + 30 + i))); done
  BALANCE=""; ZONE=""; [ "$RESTART" = 1 ] && BALANCE="least_conn;" && ZONE="zone gateways 256k;"
  LISTEN=""; for port in "${LB_PORTS[@]}"; do LISTEN+="        listen 127.0.0.1:$port reuseport;"$'\n'; done
  # sample_fds: each replica's descriptors now in FDS_NOW; PEAK_FDS keeps the highest seen.
  PEAK_FDS=(0 0 0); FDS_NOW=""
  sample_fds() {
    local i n
    FDS_NOW=""
    for i in 0 1 2; do
      n=$(ls /proc/${REPLICA_PIDS[$i]}/fd 2>/dev/null | wc -l || true)  # 0 once the process is gone
      [ "$n" -gt "${PEAK_FDS[$i]}" ] && PEAK_FDS[$i]=$n
      FDS_NOW+="$n "
    done
    FDS_NOW=${FDS_NOW% }
  }
  log "three replicas behind nginx stream, $N readers, $((N / 10)) lanes (load average $(loadavg))"
  start_gateway r1 $R1 $((R1 + 1)) --max-handshaking-per-source 1024 --ops-port $((R1 + 20)); G1=$STARTED
  start_gateway r2 $R2 $((R2 + 1)) --max-handshaking-per-source 1024 --ops-port $((R2 + 20)); G2=$STARTED
  start_gateway r3 $R3 $((R3 + 1)) --max-handshaking-per-source 1024 --ops-port $((R3 + 20)); G3=$STARTED
  REPLICA_PIDS=($G1 $G2 $G3)
  mkdir -p "$WORK/nginx/logs"
  BACKUP=""; [ "$STORM_VICTIM" = all ] && BACKUP=backup
  cat > "$WORK/nginx/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_stream_module.so;
worker_processes $WORKERS;
worker_rlimit_nofile 19000;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log error;
events { worker_connections 18000; use epoll; }
stream {
    upstream gateways { $BALANCE $ZONE server 127.0.0.1:$R1 max_fails=0; server 127.0.0.1:$R2 max_fails=0 $BACKUP; server 127.0.0.1:$R3 max_fails=0 $BACKUP; }
    server {
$LISTEN        proxy_pass gateways;
        proxy_connect_timeout 1s;
        proxy_timeout 1h;
        proxy_next_upstream on;
        proxy_next_upstream_tries 3;
    }
}
CONF
  nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf"
  for port in "${LB_PORTS[@]}"; do wait_port $port; done
  log "nginx: $WORKERS workers, listen ports ${LB_PORTS[*]}${BALANCE:+, least_conn}"
  psql_q "SELECT pg_stat_statements_reset()" >/dev/null
  # Behind nginx every connection comes from one address: the replicas take 1,024 handshakes from it.
  at=1; i=0
  while [ $at -le "$N" ]; do
    chunk=$(( N - at + 1 < PER_PROCESS ? N - at + 1 : PER_PROCESS ))
    start_readers $at $chunk "${LB_PORTS[$(( i % ${#LB_PORTS[@]} ))]}" lb --handshake-window "${FLEET_HANDSHAKE_WINDOW:-64}"
    at=$(( at + chunk )); i=$(( i + 1 ))
  done
  wait_attached "$WORK/readers-lb-*.log" "$N" $(( N / 40 > 300 ? N / 40 : 300 ))
  sample_fds; log "$N readers attached (descriptors per replica: $FDS_NOW; load average $(loadavg))"
  "$BIN/fleet-load" --mode lanes --dir "$WORK/fleet" --port "${LB_PORTS[-1]}" --count $((N / 10)) --period "$LANE_PERIOD" --duration 0 --hold > "$WORK/lanes-cluster.log" 2>&1 &
  LANES=$!; PIDS+=($LANES)
  for _ in $(seq 1 600); do grep -q lanes_ready "$WORK/lanes-cluster.log" && break; sleep 0.2; done
  sleep 10
  g0=$(cpu_ticks $G1 $G2 $G3); p0=$(pg_counters); t0=$(date +%s.%N)
  sleep "$WINDOW"
  g1=$(cpu_ticks $G1 $G2 $G3); p1=$(pg_counters); t1=$(date +%s.%N); sample_fds
  python3 - "$N" "$t0" "$t1" "$g0" "$g1" "$p0" "$p1" "$(rss_kb $G1)" "$(rss_kb $G2)" "$(rss_kb $G3)" "$(loadavg)" "$FDS_NOW" <<'PY' | tee -a "$RAW"
import json, sys
a = sys.argv[1:]
n = int(a[0]); seconds = float(a[2]) - float(a[1])
d = [y - x for x, y in zip([float(x) for x in a[5].split()], [float(x) for x in a[6].split()])]
print(json.dumps({"label": "fleet three replicas", "readers": n, "lanes": n // 10, "seconds": round(seconds, 2),
    "gateways_cpu_pct": round((int(a[4]) - int(a[3])) / seconds, 2), "rss_mb": [round(int(x) / 1024, 1) for x in a[7:10]],
    "fds": [int(x) for x in a[11].split()],
    "pg_statements_per_s": round(d[0] / seconds, 1), "pg_writes_per_s": round(d[1] / seconds, 1), "wal_bytes_per_s": round(d[3] / seconds),
    "pg_statements_per_s_per_1000_readers": round(d[0] / seconds / n * 1000, 1), "wal_bytes_per_s_per_1000_readers": round(d[3] / seconds / n * 1000),
    "compare_per_s": round(d[4] / seconds, 2), "compare_ms_each": round(d[5] / d[4], 2) if d[4] else 0, "loadavg": a[10]}))
PY
  # The one-replica run's sessions end with their lease (its node is reaped): wait for them.
  for _ in $(seq 1 120); do
    [ "$(psql_q "SELECT count(*) FROM reader_ownership o JOIN sdk_sessions s ON s.id = o.session_id WHERE s.node_id LIKE 'gw1%'")" = 0 ] && break
    sleep 1
  done
  # Every lane holds its reader before the kill (each connects within 1.5 periods of opening).
  READY=$(grep -o '"lanes_ready":[0-9]*' "$WORK/lanes-cluster.log" | tail -1 | cut -d: -f2 || true)
  for _ in $(seq 1 180); do
    [ "$(psql_q "SELECT count(*) FROM reader_ownership o JOIN sdk_sessions s ON s.id = o.session_id WHERE s.node_id NOT LIKE 'gw1%'")" -ge "${READY:-0}" ] && break
    sleep 0.5
  done
  # The storm: kill -9 the replica holding the most reader links.
  read -r VICTIM_NODE VICTIM_LINKS < <(psql_q "SELECT link_node, count(*) FROM reader_ownership WHERE online AND link_detached_at IS NULL GROUP BY link_node ORDER BY 2 DESC LIMIT 1")
  case "$VICTIM_NODE" in
    r1*) VICTIM=$G1; SURVIVORS="$G2 $G3"; VICTIM_INDEX=0; VICTIM_PORT=$R1;;
    r2*) VICTIM=$G2; SURVIVORS="$G1 $G3"; VICTIM_INDEX=1; VICTIM_PORT=$R2;;
    *) VICTIM=$G3; SURVIVORS="$G1 $G2"; VICTIM_INDEX=2; VICTIM_PORT=$R3;;
  esac
  VICTIM_NAME=r$((VICTIM_INDEX + 1))
  psql_q "DROP TABLE IF EXISTS fleet_before; CREATE TABLE fleet_before AS SELECT reader_id, session_id, generation, link_epoch FROM reader_ownership;
          DROP TABLE IF EXISTS fleet_watch; CREATE TABLE fleet_watch AS SELECT reader_id, generation, link_epoch FROM reader_ownership;
          ALTER TABLE fleet_watch ADD PRIMARY KEY (reader_id);
          DROP TABLE IF EXISTS fleet_victims; CREATE TABLE fleet_victims AS SELECT reader_id, NULL::timestamptz AS at FROM reader_ownership
            WHERE online AND link_detached_at IS NULL AND link_node = '$VICTIM_NODE';
          ALTER TABLE fleet_victims ADD PRIMARY KEY (reader_id)" >/dev/null
  OWNED=$(psql_q "SELECT count(*) FROM fleet_before WHERE session_id IS NOT NULL")
  VICTIM_SESSIONS=$(psql_q "SELECT count(*) FROM sdk_sessions WHERE node_id = '$VICTIM_NODE' AND closed_at IS NULL")
  RESUMED0=$(grep -o '"resumed":[0-9]*' "$WORK/lanes-cluster.log" | tail -1 | cut -d: -f2 || true)
  FAILURES0=$(grep -o '"failures":[0-9]*' "$WORK/lanes-cluster.log" | tail -1 | cut -d: -f2 || true)
  log "storm: kill -9 $VICTIM_NODE holding $VICTIM_LINKS reader links and $VICTIM_SESSIONS sessions ($OWNED readers owned; load average $(loadavg))"
  psql_q "SELECT pg_stat_statements_reset()" >/dev/null
  p_prev=$(pg_counters); peak_stmt=0; peak_wal=0; peak_writes=0; went_back=0
  s0=$(cpu_ticks $SURVIVORS); ld0=$(cpu_ticks "${LOADERS[@]}" $LANES); pg0=$(pg_ticks)
  KILLED_AT=$(psql_q "SELECT now()")
  CLOSES0=$(closes "$WORK/readers-lb-*.log")
  t_kill=$(date +%s.%N); kill -9 "$VICTIM"
  STORM_REPLICAS=$SURVIVORS; RESTART_MS=""
  if [ "$RESTART" = 1 ]; then
    # As a Deployment would: the pod comes back at once, same ports, same node name (a new node id).
    wait "$VICTIM" 2>/dev/null || true
    mv "$WORK/$VICTIM_NAME.log" "$WORK/$VICTIM_NAME-killed.log"
    start_gateway "$VICTIM_NAME" "$VICTIM_PORT" $((VICTIM_PORT + 1)) --max-handshaking-per-source 1024 --ops-port $((VICTIM_PORT + 20))
    RESTART_MS=$(python3 -c 'import sys, time; print(round((time.time() - float(sys.argv[1])) * 1000))' "$t_kill")
    REPLICA_PIDS[$VICTIM_INDEX]=$STARTED; STORM_REPLICAS="$SURVIVORS $STARTED"
    log "storm: $VICTIM_NAME restarted after $RESTART_MS ms, as a Deployment would (same ports, node name $VICTIM_NAME)"
  fi
  done_at=""; linked_at=""; resumed_at=""; s_done=""; p_done=""
  : > "$WORK/storm.log"
  while python3 -c 'import sys, time; sys.exit(0 if time.time() - float(sys.argv[1]) < float(sys.argv[2]) else 1)' "$t_kill" "$STORM_SECONDS"; do
    sleep 0.5
    # Each of the killed replica's readers: when a poll first saw it linked to a live replica.
    psql_q "UPDATE fleet_victims v SET at = clock_timestamp() FROM reader_ownership o
            WHERE v.at IS NULL AND o.reader_id = v.reader_id AND o.online AND o.link_detached_at IS NULL AND o.link_node IS DISTINCT FROM '$VICTIM_NODE'" >/dev/null
    read -r linked kept left < <(psql_q "SELECT
        (SELECT count(*) FROM reader_ownership WHERE online AND link_detached_at IS NULL AND link_node IS DISTINCT FROM '$VICTIM_NODE'),
        (SELECT count(*) FROM reader_ownership o JOIN fleet_before b USING (reader_id) WHERE b.session_id IS NOT NULL AND o.session_id = b.session_id),
        (SELECT count(*) FROM sdk_sessions WHERE node_id = '$VICTIM_NODE' AND closed_at IS NULL)")
    # Nothing goes back: every poll compares each row's generation and link epoch with the
    # highest seen so far (the chaos run's MonotonicWatch, in SQL).
    back=$(psql_q "WITH now_rows AS (SELECT reader_id, generation, link_epoch FROM reader_ownership),
        back AS (SELECT count(*) AS n FROM now_rows r JOIN fleet_watch w USING (reader_id) WHERE r.generation < w.generation OR r.link_epoch < w.link_epoch),
        raised AS (UPDATE fleet_watch w SET generation = greatest(w.generation, r.generation), link_epoch = greatest(w.link_epoch, r.link_epoch)
                   FROM now_rows r WHERE r.reader_id = w.reader_id AND (r.generation > w.generation OR r.link_epoch > w.link_epoch) RETURNING 1)
        SELECT n + 0 * (SELECT count(*) FROM raised) FROM back")
    went_back=$((went_back + back))
    sample_fds
    now=$(date +%s.%N); p_now=$(pg_counters)
    read -r s w x <<<"$(python3 -c 'import sys; a=[float(x) for x in sys.argv[1].split()]; b=[float(x) for x in sys.argv[2].split()]; t=float(sys.argv[4])-float(sys.argv[3]); print(int((b[0]-a[0])/t), int((b[1]-a[1])/t), int((b[3]-a[3])/t))' "$p_prev" "$p_now" "${t_prev:-$t_kill}" "$now")"
    p_prev=$p_now; t_prev=$now
    echo "storm +$(python3 -c 'import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))' "$t_kill" "$now")s: linked $linked/$N, owners kept $kept/$OWNED, sessions left on the dead node $left, $s statements/s ($w writes/s), descriptors per replica $FDS_NOW, CPU since the kill (ticks, 1/100 s): replicas $(( $(cpu_ticks $STORM_REPLICAS) - s0 )), load tools $(( $(cpu_ticks "${LOADERS[@]}" $LANES) - ld0 )), PostgreSQL $(( $(pg_ticks) - pg0 )); went back $back, load average $(loadavg)" >> "$WORK/storm.log"
    [ "$s" -gt "$peak_stmt" ] && peak_stmt=$s; [ "$w" -gt "$peak_writes" ] && peak_writes=$w; [ "$x" -gt "$peak_wal" ] && peak_wal=$x
    [ -z "$linked_at" ] && [ "$linked" -ge "$N" ] && linked_at=$now
    [ -z "$resumed_at" ] && [ "$left" = 0 ] && resumed_at=$now
    if [ -z "$done_at" ] && [ "$linked" -ge "$N" ] && [ "$kept" -ge "$OWNED" ] && [ "$left" = 0 ]; then done_at=$now; p_done=$p_now; s_done=$(cpu_ticks $STORM_REPLICAS); ld_done=$(cpu_ticks "${LOADERS[@]}" $LANES); pg_done=$(pg_ticks); fi
    # Past the node lease and the offline bound an owner can no longer be lost: stop there.
    [ -n "$done_at" ] && python3 -c 'import sys, time; sys.exit(0 if time.time() - float(sys.argv[1]) > 25 else 1)' "$t_kill" && break
  done
  cp "$WORK/storm.log" "$OUT/fleet-storm.log"
  CLOSES1=$(closes "$WORK/readers-lb-*.log")
  # Each replica's connections, accepts and handshakes (their ops endpoints' /metrics) as the storm ends.
  for port in $R1 $R2 $R3; do
    echo "# replica on port $port"
    curl -s --max-time 5 "http://127.0.0.1:$((port + 20))/metrics" | grep -E '^(reader_gateway_(connections|connections_accepted_total|tls_handshakes_total|tls_handshakes_resumed_total|tls_handshake_failures_total|connections_refused_total)|process_open_fds)' || true
  done > "$OUT/fleet-storm-metrics.txt"
  cp "$WORK/nginx/logs/error.log" "$OUT/fleet-storm-nginx-error.log" 2>/dev/null || true
  [ "$RESTART" = 1 ] && cp "$WORK/$VICTIM_NAME.log" "$OUT/fleet-storm-restarted-replica.log"
  # Where PostgreSQL's time went during the storm (the counters were reset at the kill).
  psql_q "SELECT calls, round(total_exec_time) AS ms, rows, left(regexp_replace(query, '\s+', ' ', 'g'), 140)
          FROM pg_stat_statements WHERE $GATEWAY_STATEMENTS ORDER BY total_exec_time DESC LIMIT 15" > "$OUT/fleet-storm-statements.txt"
  sleep 3
  RESUMED1=$(grep -o '"resumed":[0-9]*' "$WORK/lanes-cluster.log" | tail -1 | cut -d: -f2 || true)
  FAILURES1=$(grep -o '"failures":[0-9]*' "$WORK/lanes-cluster.log" | tail -1 | cut -d: -f2 || true)
  BY_REASON=$(grep -o '"failures_by_reason":{[^}]*}' "$WORK/lanes-cluster.log" | tail -1 | cut -d: -f2- | tr -d ' ' || true)
  [ -n "$BY_REASON" ] || BY_REASON='{}'
  # The invariants of `make chaos`, in PostgreSQL, once the storm is over.
  read -r owners_bad gen_back taken_by_others two_readers closed_owners dead_links history_gaps history_breaks rows_disagree < <(psql_q "
    WITH changes AS (
        SELECT reader_id, generation, from_session_id, to_session_id,
               row_number() OVER w AS n, lag(to_session_id) OVER w AS previous_to
        FROM ownership_history WHERE reason <> 'refused_busy' WINDOW w AS (PARTITION BY reader_id ORDER BY id)),
      last_change AS (SELECT DISTINCT ON (reader_id) reader_id, n, to_session_id FROM changes ORDER BY reader_id, n DESC)
    SELECT
      (SELECT count(*) FROM (SELECT reader_id FROM reader_ownership GROUP BY reader_id HAVING count(*) > 1) x),
      (SELECT count(*) FROM reader_ownership o JOIN fleet_before b USING (reader_id) WHERE o.generation < b.generation OR o.link_epoch < b.link_epoch),
      (SELECT count(*) FROM ownership_history h JOIN fleet_before b USING (reader_id)
         WHERE h.at >= '$KILLED_AT' AND h.reason <> 'refused_busy' AND b.session_id IS NOT NULL AND h.to_session_id IS NOT NULL AND h.to_session_id <> b.session_id),
      (SELECT count(*) FROM (SELECT session_id FROM reader_ownership WHERE session_id IS NOT NULL GROUP BY session_id HAVING count(*) > 1) x),
      (SELECT count(*) FROM reader_ownership o JOIN sdk_sessions s ON s.id = o.session_id WHERE s.closed_at IS NOT NULL),
      (SELECT count(*) FROM reader_ownership o WHERE o.link_node IS NOT NULL AND o.link_detached_at IS NULL AND o.link_node NOT IN (SELECT node_id FROM gateway_nodes)),
      (SELECT count(*) FROM changes WHERE generation <> n),
      (SELECT count(*) FROM changes WHERE from_session_id IS DISTINCT FROM previous_to),
      (SELECT count(*) FROM reader_ownership o LEFT JOIN last_change l USING (reader_id)
         WHERE o.generation <> coalesce(l.n, 0) OR o.session_id IS DISTINCT FROM l.to_session_id)")
  # The killed replica's readers' re-attach times (seconds from the kill, at a poll's resolution).
  REATTACH=$(psql_q "SELECT count(at), count(*), coalesce(round(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM at - '$KILLED_AT'))::numeric, 2), -1),
      coalesce(round(percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM at - '$KILLED_AT'))::numeric, 2), -1),
      coalesce(round(max(extract(epoch FROM at - '$KILLED_AT'))::numeric, 2), -1) FROM fleet_victims")
  python3 - "$t_kill" "${done_at:-}" "${linked_at:-}" "${resumed_at:-}" "$VICTIM_LINKS" "$VICTIM_SESSIONS" "$OWNED" "${linked:-0}" "${kept:-0}" "${left:-0}" "$N" \
      "$peak_stmt" "$peak_writes" "$peak_wal" "$(( ${RESUMED1:-0} - ${RESUMED0:-0} ))" "$(( ${FAILURES1:-0} - ${FAILURES0:-0} ))" "$owners_bad" "$gen_back" "$(loadavg)" \
      "$went_back" "$taken_by_others" "$two_readers" "$closed_owners" "$dead_links" "$history_gaps" "$history_breaks" "$rows_disagree" \
      "$s0" "${s_done:-$(cpu_ticks $STORM_REPLICAS)}" "$BY_REASON" "$ld0" "${ld_done:-$(cpu_ticks "${LOADERS[@]}" $LANES)}" "$pg0" "${pg_done:-$(pg_ticks)}" \
      "${RESTART_MS:-}" "$REATTACH" "${p_done:-$p_now}" "$RAW" "${PEAK_FDS[*]}" "$((CLOSES1 - CLOSES0))" <<'PY' | tee -a "$RAW"
import json, sys
a = sys.argv[1:]
since = lambda t: round(float(t) - float(a[0]), 2) if t else None
done = since(a[1])
inv = dict(zip(["readers_with_two_rows", "generations_or_epochs_below_before", "polls_went_back", "taken_by_another_session", "sessions_owning_two_readers",
                "owned_by_closed_sessions", "linked_to_unregistered_nodes", "history_gaps", "history_broken_chains", "rows_disagreeing_with_history"],
               [int(a[16]), int(a[17]), int(a[19]), int(a[20]), int(a[21]), int(a[22]), int(a[23]), int(a[24]), int(a[25]), int(a[26])]))
span = done if done else since(str(__import__("time").time()))
def storm_extra():
    # With the restart: its time; the re-attach times; the statements PostgreSQL ran from the kill
    # until done, per re-attached reader, also net of the steady rate measured before the kill.
    re_n, re_of, re_p50, re_p99, re_max = (float(x) for x in a[35].split())
    statements = float(a[36].split()[0])
    steady = next((json.loads(line) for line in open(a[37]) if '"fleet three replicas"' in line), {})
    links = max(int(a[4]), 1)
    net = statements - steady.get("pg_statements_per_s", 0) * (span or 0)
    return {"restarted_after_ms": int(a[34]) if a[34] else None, "reattached_readers_seen": int(re_n), "of_victim_readers": int(re_of),
            "reattach_p50_s": re_p50, "reattach_p99_s": re_p99, "slowest_reattach_s": re_max,
            "pg_statements_until_done": int(statements), "pg_statements_per_reattached_reader": round(statements / links, 2),
            "pg_statements_per_reattached_reader_net_of_steady": round(net / links, 2),
            "peak_fds_per_replica": [int(x) for x in a[38].split()], "reader_link_closes_during_storm": int(a[39])}
print(json.dumps({"label": "reconnect storm", "seconds_until_all_linked": since(a[2]), "seconds_until_sessions_off_dead_node": since(a[3]),
    "victim_reader_links": int(a[4]), "victim_sessions": int(a[5]), "owned_readers": int(a[6]),
    "seconds_to_all_reattached_owners_kept_lanes_resumed": done,
    "readers_linked_on_live_replicas": int(a[7]), "of_readers": int(a[10]), "owners_kept": int(a[8]), "sessions_left_on_dead_node": int(a[9]),
    "peak_pg_statements_per_s": int(a[11]), "peak_pg_writes_per_s": int(a[12]), "peak_wal_bytes_per_s": int(a[13]),
    "lanes_resumed": int(a[14]), "lane_failures": int(a[15]), "lane_failures_by_reason": json.loads(a[29] or "{}"),
    "survivors_cpu_pct_until_done": round((int(a[28]) - int(a[27])) / span, 1) if span else None,
    "load_tools_cpu_pct_until_done": round((int(a[31]) - int(a[30])) / span, 1) if span else None,
    "postgres_cpu_pct_until_done": round((int(a[33]) - int(a[32])) / span, 1) if span else None,
    "replicas_cpu_seconds_until_done": round((int(a[28]) - int(a[27])) / 100, 1), "load_tools_cpu_seconds_until_done": round((int(a[31]) - int(a[30])) / 100, 1),
    "postgres_cpu_seconds_until_done": round((int(a[33]) - int(a[32])) / 100, 1),
    **storm_extra(), "invariants": inv, "invariants_hold": all(v == 0 for v in inv.values()), "loadavg": a[18]}))
PY
fi

python3 - "$RAW" "$OUT/fleet.md" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
med = lambda xs: statistics.median(xs) if xs else 0
out = ["| readers (lanes) | gateway CPU % of a core | transport echo floor % | ratio (median of rounds) | load tool CPU % | KB resident per reader: gateway / echo | gateway fds | PG statements/s (writes/s) | WAL bytes/s | ownership comparison: per s, ms each, rows each | connect p50 / p99 ms | relayed command p50 / p99 ms | load average |",
       "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
sizes = sorted({r["readers"] for r in rows if r["label"] == "fleet one replica"})
for n in sizes:
    rs = [r for r in rows if r["label"] == "fleet one replica" and r["readers"] == n and not r.get("watcher")]
    lane = next((r for r in rows if r["label"] == "fleet lanes" and r["readers"] == n), {})
    m = lambda k: med([r[k] for r in rs if r.get(k) is not None])
    out.append(f"| {n:,} ({rs[0].get('lanes', n // 10):,}) | {m('gateway_cpu_pct'):.1f} | {m('echo_cpu_pct'):.1f} | {m('ratio'):.2f}× ({' '.join(str(r['ratio']) for r in rs)}) | {m('load_cpu_pct'):.1f} | "
               f"{m('gateway_kb_per_reader'):.1f} / {m('echo_kb_per_connection'):.1f} | {m('gateway_fds'):.0f} | {m('pg_statements_per_s'):.0f} ({m('pg_writes_per_s'):.0f}) | {m('wal_bytes_per_s'):,.0f} | "
               f"{m('compare_per_s'):.2f}, {m('compare_ms_each'):.1f}, {m('compare_rows_each'):,.0f} | {lane.get('connect_p50_ms', 0)} / {lane.get('connect_p99_ms', 0)} | "
               f"{lane.get('relay_p50_ms', 0)} / {lane.get('relay_p99_ms', 0)} | {rs[-1]['loadavg']} |")
watched = [r for r in rows if r["label"] == "fleet one replica" and r.get("watcher")]
if watched:
    out += ["", "| WatchFleet, readers | gateway CPU % without / with a watcher (ratio, median of rounds) | PG statements/s without / with | PG ms/s without / with | fleet NOTIFYs/s without / with | full comparisons per s, ms each, rows/s | hinted re-reads per s, rows/s | events to the watcher per s | load average |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for n in sizes:
        plain = {r["round"]: r for r in rows if r["label"] == "fleet one replica" and r["readers"] == n and not r.get("watcher")}
        seen = {r["round"]: r for r in watched if r["readers"] == n}
        pairs = [(plain[k], seen[k]) for k in sorted(seen) if k in plain]
        if not pairs:
            continue
        mp = lambda k, i: med([p[i][k] for p in pairs])
        ratios = [round(w["gateway_cpu_pct"] / p["gateway_cpu_pct"], 2) for p, w in pairs if p["gateway_cpu_pct"]]
        out.append(f"| {n:,} | {mp('gateway_cpu_pct', 0):.1f} / {mp('gateway_cpu_pct', 1):.1f} ({med(ratios):.2f}×: {' '.join(map(str, ratios))}) | "
                   f"{mp('pg_statements_per_s', 0):.0f} / {mp('pg_statements_per_s', 1):.0f} | {mp('pg_exec_ms_per_s', 0):.1f} / {mp('pg_exec_ms_per_s', 1):.1f} | "
                   f"{mp('fleet_notify_per_s', 0):.2f} / {mp('fleet_notify_per_s', 1):.2f} | {mp('watch_full_per_s', 1):.2f}, {mp('watch_full_ms_each', 1):.1f}, {mp('watch_full_rows_per_s', 1):,.0f} | "
                   f"{mp('watch_hinted_per_s', 1):.2f}, {mp('watch_hinted_rows_per_s', 1):.1f} | {mp('watch_events_per_s', 1):.1f} | {pairs[-1][1]['loadavg']} |")
three = next((r for r in rows if r["label"] == "fleet three replicas"), None)
if three:
    per1000 = lambda k: three.get(k, "")
    out += ["", "| three replicas: readers (lanes) | CPU % of a core, all replicas | RSS MB each | descriptors each | PG statements/s (writes/s) | WAL bytes/s | per 1,000 readers: statements/s, WAL bytes/s | ownership comparisons per s, ms each |", "| --- | --- | --- | --- | --- | --- | --- | --- |",
            f"| {three['readers']:,} ({three['lanes']:,}) | {three['gateways_cpu_pct']:.1f} | {' / '.join(map(str, three['rss_mb']))} | {' / '.join(map(str, three.get('fds', [])))} | {three['pg_statements_per_s']:.0f} ({three['pg_writes_per_s']:.0f}) | {three['wal_bytes_per_s']:,} | "
            f"{per1000('pg_statements_per_s_per_1000_readers')}, {per1000('wal_bytes_per_s_per_1000_readers')} | {three['compare_per_s']:.2f}, {three['compare_ms_each']:.1f} |"]
storm = next((r for r in rows if r["label"] == "reconnect storm"), None)
if storm:
    inv = storm["invariants"]
    broken = ", ".join(f"{k} {v}" for k, v in inv.items() if v) or "none broken"
    out += ["", "| storm: reader links / sessions on the killed replica | seconds until all re-attached / lanes' sessions off the dead replica / both with every owner kept | readers linked / of | owners kept / owned | peak PG statements/s (writes/s) | peak WAL bytes/s | CPU % of a core until done: replicas (survivors, and the restarted one) / load tools / PostgreSQL | lanes resumed | lane failures (by reason) | invariants | load average |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
            f"| {storm['victim_reader_links']:,} / {storm['victim_sessions']:,} | {storm['seconds_until_all_linked']} / {storm['seconds_until_sessions_off_dead_node']} / {storm['seconds_to_all_reattached_owners_kept_lanes_resumed']} | {storm['readers_linked_on_live_replicas']:,} / {storm['of_readers']:,} | {storm['owners_kept']:,} / {storm['owned_readers']:,} | "
            f"{storm['peak_pg_statements_per_s']:,} ({storm['peak_pg_writes_per_s']:,}) | {storm['peak_wal_bytes_per_s']:,} | {storm['survivors_cpu_pct_until_done']} / {storm.get('load_tools_cpu_pct_until_done')} / {storm.get('postgres_cpu_pct_until_done')} | {storm['lanes_resumed']} | {storm['lane_failures']} {json.dumps(storm['lane_failures_by_reason'])} | {'hold' if storm['invariants_hold'] else 'BROKEN: ' + broken} | {storm['loadavg']} |"]
    restart = f"restarted after {storm['restarted_after_ms']} ms, as a Deployment would" if storm.get("restarted_after_ms") is not None else "not restarted"
    out += ["", "| storm: the killed replica | its readers re-attached (seen) / of | re-attach p50 / p99 / slowest s | PG statements until done: total, per re-attached reader (net of the steady rate) | CPU seconds until done: replicas / load tools / PostgreSQL | peak descriptors per replica |", "| --- | --- | --- | --- | --- | --- |",
            f"| {restart} | {storm.get('reattached_readers_seen', 0):,} / {storm.get('of_victim_readers', 0):,} | {storm.get('reattach_p50_s')} / {storm.get('reattach_p99_s')} / {storm.get('slowest_reattach_s')} | "
            f"{storm.get('pg_statements_until_done', 0):,}, {storm.get('pg_statements_per_reattached_reader')} ({storm.get('pg_statements_per_reattached_reader_net_of_steady')}) | "
            f"{storm.get('replicas_cpu_seconds_until_done')} / {storm.get('load_tools_cpu_seconds_until_done')} / {storm.get('postgres_cpu_seconds_until_done')} | {' / '.join(map(str, storm.get('peak_fds_per_replica', [])))} |"]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
if grep -q '"invariants_hold": false' "$RAW"; then
  echo "fleet-bench: the reconnect storm broke the cluster invariants (see the storm row above and $OUT/fleet-storm.log)"
  exit 1
fi
