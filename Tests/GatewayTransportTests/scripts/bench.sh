#!/bin/bash
# Transport benchmarks: our TLS echo (transport-echo) beside nginx (TLS-terminating stream proxy
# in front of a plain echo) and openssl s_server, measured in one run by our load generator
# (transport-load). Every figure is reported beside its peer as a ratio.
#
# Usage: bench.sh RELEASE_BIN_DIR RESULTS_DIR
# Environment: TRANSPORT_BENCH_RUNS (default 3, medians are reported), TRANSPORT_BENCH_SECONDS
# (measured window per run, default 3), TRANSPORT_BENCH_IDLE (idle connections, default 19500;
# a process here may not exceed 20,000 open files).
set -euo pipefail
BIN=${1:?usage: bench.sh RELEASE_BIN_DIR RESULTS_DIR}
RESULTS=${2:?usage: bench.sh RELEASE_BIN_DIR RESULTS_DIR}
RUNS=${TRANSPORT_BENCH_RUNS:-3}
SECONDS_PER_RUN=${TRANSPORT_BENCH_SECONDS:-3}
IDLE=${TRANSPORT_BENCH_IDLE:-19500}
IDLE_NGINX=${TRANSPORT_BENCH_IDLE_NGINX:-9000}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
WORK=$(mktemp -d)
RAW="$RESULTS/transport.jsonl"
: > "$RAW"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

ECHO="$BIN/transport-echo"
LOAD="$BIN/transport-load"
OURS_PORT=18443; NGINX_PORT=18444; BACKEND_PORT=19000; SSERVER_PORT=18445

wait_port() { for _ in $(seq 1 200); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 did not open"; return 1; }
record() { tee -a "$RAW"; }
loads() { # label mode port pids extra...
  local label=$1 mode=$2 port=$3 pids=$4; shift 4
  "$LOAD" --mode "$mode" --port "$port" --server-pids "$pids" --label "$label" --loops 2 "$@" | record
}

echo "== certificates (ECDSA P-256, created by transport-echo's development CA)"
"$ECHO" --port 0 --dev-ca "$WORK/ca" --loops 1 > "$WORK/ca.out" 2>/dev/null &
CA_PID=$!
for _ in $(seq 1 200); do grep -q listening "$WORK/ca.out" 2>/dev/null && break; sleep 0.05; done
kill $CA_PID; wait $CA_PID 2>/dev/null || true
CERT="$WORK/ca/server.pem"; KEY="$WORK/ca/server-key.pem"

echo "== peers: plain echo backend, nginx stream proxy (2 workers), openssl s_server"
gcc -O2 -o "$WORK/plain-echo" "$HERE/../bench/plain-echo.c"
"$WORK/plain-echo" $BACKEND_PORT & PIDS+=($!)
mkdir -p "$WORK/nginx/logs"
cat > "$WORK/nginx/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_stream_module.so;
worker_processes 2;
worker_rlimit_nofile 20000;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log error;
events { worker_connections 9990; use epoll; multi_accept on; }
stream {
    upstream echo_backend { server 127.0.0.1:$BACKEND_PORT; }
    server {
        listen 127.0.0.1:$NGINX_PORT ssl backlog=4096 reuseport;
        ssl_certificate     $CERT;
        ssl_certificate_key $KEY;
        ssl_protocols TLSv1.2 TLSv1.3;
        proxy_pass echo_backend;
        tcp_nodelay on;
        proxy_timeout 10m;
    }
}
CONF
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf"
wait_port $BACKEND_PORT; wait_port $NGINX_PORT
nginx_pids() { pgrep -d, -P "$(cat "$WORK/nginx/nginx.pid")" | sed "s/^/$(cat "$WORK/nginx/nginx.pid"),/"; }

start_ours() { # loops
  "$ECHO" --port $OURS_PORT --loops "$1" --certificate "$CERT" --key "$KEY" --log-level warning > /dev/null &
  OURS=$!; PIDS+=($OURS); wait_port $OURS_PORT
}
stop_ours() { kill "$OURS"; wait "$OURS" 2>/dev/null || true; }

echo "== round trips: 200-byte request/response, closed loop, $RUNS runs of ${SECONDS_PER_RUN}s"
start_ours 2
for connections in 16 256 2000; do
  for run in $(seq 1 "$RUNS"); do
    loads "ours rtt $connections" rtt $OURS_PORT "$OURS" --connections $connections --duration ${SECONDS_PER_RUN}s --warmup 1s
    loads "nginx rtt $connections" rtt $NGINX_PORT "$(nginx_pids)" --connections $connections --duration ${SECONDS_PER_RUN}s --warmup 1s
  done
done
stop_ours

echo "== TLS 1.3 handshakes/s, ECDSA P-256, 64 in flight"
openssl s_server -accept 127.0.0.1:$SSERVER_PORT -cert "$CERT" -key "$KEY" -tls1_3 -quiet -naccept 100000000 > /dev/null 2>&1 < /dev/null &
SSERVER=$!; PIDS+=($SSERVER); wait_port $SSERVER_PORT
start_ours 1; OURS1=$OURS
for run in $(seq 1 "$RUNS"); do
  loads "s_server handshake" handshake $SSERVER_PORT "$SSERVER" --duration ${SECONDS_PER_RUN}s --warmup 1s
  loads "ours-1loop handshake" handshake $OURS_PORT "$OURS1" --duration ${SECONDS_PER_RUN}s --warmup 1s
done
stop_ours
start_ours 2
for run in $(seq 1 "$RUNS"); do
  loads "ours handshake" handshake $OURS_PORT "$OURS" --duration ${SECONDS_PER_RUN}s --warmup 1s
  loads "nginx handshake" handshake $NGINX_PORT "$(nginx_pids)" --duration ${SECONDS_PER_RUN}s --warmup 1s
done
stop_ours
kill $SSERVER; wait $SSERVER 2>/dev/null || true

echo "== idle memory: $IDLE idle TLS connections to ours, $IDLE_NGINX to nginx (2 fds each there)"
start_ours 2
loads "ours idle" idle $OURS_PORT "$OURS" --connections "$IDLE" --in-flight 128
stop_ours
loads "nginx idle" idle $NGINX_PORT "$(nginx_pids)" --connections "$IDLE_NGINX" --in-flight 128

python3 "$HERE/bench-report.py" "$RAW" | tee "$RESULTS/transport.md"
