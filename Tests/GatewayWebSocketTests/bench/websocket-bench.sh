#!/usr/bin/env bash
# Relayed command round trips through the gateway with the lanes on the WebSocket binding
# (lane ─WebSocket on TLS─▶ gateway ─raw frames on TLS─▶ reader and back) beside the same
# relay with the lanes on raw frames, and beside nginx proxying WebSocket (http proxy_pass
# with Upgrade/Connection, TLS in, TLS to a WebSocket echo: transport-echo --websocket),
# 16 and 256 pairs/connections, same run, same machine.
#
# ROUNDS (default 5) interleaved rounds; in each, at 16 then 256 pairs: nginx, then the
# gateway with raw lanes and with WebSocket lanes (their order alternating round to round, so
# neither always runs second). Medians of the rounds; the CPU ratio WebSocket / raw (gateway
# loop CPU per round trip) is the median of the rounds' ratios. The load average is recorded
# before every round: other work on the machine shows up there.
#
#   Tests/GatewayWebSocketTests/bench/websocket-bench.sh <release bin dir> <results dir>
set -euo pipefail
BIN=$1; OUT=$2
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
ROUNDS=${ROUNDS:-5}
PAIRS=${PAIRS:-16 256}
mkdir -p "$OUT"
RAW="$OUT/websocket.jsonl"; : > "$RAW"
WORK=$(mktemp -d /tmp/websocket-bench.XXXXXX)
PIDS=()
cleanup() {
  [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
NGINX_PORT=18644; ECHO_PORT=18645
wait_port() { for _ in $(seq 1 200); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 did not open"; return 1; }
machine() { echo "{\"label\": \"machine\", \"round\": $1, \"loadavg\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"cpus\": $(nproc)}"; }

echo "== peer: nginx proxying WebSocket (2 workers, TLS in, proxy_pass https to transport-echo --websocket)"
"$BIN/transport-echo" --port $ECHO_PORT --dev-ca "$WORK/ca" --loops 2 --max-handshaking-per-source 1024 --websocket --log-level warning > /dev/null 2>&1 & PIDS+=($!)
wait_port $ECHO_PORT
for _ in $(seq 1 200); do [ -s "$WORK/ca/server-key.pem" ] && break; sleep 0.05; done
mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 2;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log error;
events { worker_connections 4096; use epoll; multi_accept on; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/tmp/body;
    proxy_temp_path $WORK/nginx/tmp/proxy;
    fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
    uwsgi_temp_path $WORK/nginx/tmp/uwsgi;
    scgi_temp_path $WORK/nginx/tmp/scgi;
    map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
    server {
        listen 127.0.0.1:$NGINX_PORT ssl reuseport;
        ssl_certificate     $WORK/ca/server.pem;
        ssl_certificate_key $WORK/ca/server-key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        tcp_nodelay on;
        location / {
            proxy_pass https://127.0.0.1:$ECHO_PORT;
            proxy_ssl_protocols TLSv1.2 TLSv1.3;
            proxy_http_version 1.1;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$connection_upgrade;
            proxy_set_header Host \$host;
            proxy_read_timeout 10m;
            proxy_send_timeout 10m;
        }
    }
}
CONF
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf"
wait_port $NGINX_PORT
NGINX_PIDS=$(pgrep -d, -P "$(cat "$WORK/nginx/nginx.pid")")

gateway() {  # carrier pairs
  timeout 120 "$BIN/service-bench" --pairs "$2" --lanes "$1" --duration ${SECONDS_PER_RUN}s --warmup 1s --label "gateway $1 $2" 2>/dev/null | tee -a "$RAW"
}
for round in $(seq 1 "$ROUNDS"); do
  machine "$round" | tee -a "$RAW"
  for pairs in $PAIRS; do
    echo "== round $round, $pairs pairs"
    "$BIN/transport-load" --mode websocket-rtt --port $NGINX_PORT --connections "$pairs" --size 64 --duration ${SECONDS_PER_RUN}s --warmup 1s \
      --server-pids "$NGINX_PIDS" --label "nginx websocket $pairs" --loops 2 | tee -a "$RAW"
    if [ $((round % 2)) = 1 ]; then gateway raw "$pairs"; gateway websocket "$pairs"; else gateway websocket "$pairs"; gateway raw "$pairs"; fi
  done
done
machine "\"end\"" | tee -a "$RAW"

python3 - "$RAW" "$OUT/websocket.md" "$PAIRS" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
def median(values): return statistics.median(values) if values else 0
def runs(label): return [r for r in rows if r["label"] == label]
def cpu(row, key): return row.get(key, 0)
loads = [r["loadavg"] for r in rows if r["label"] == "machine"]
out = [f"Load average (1/5/15 min) before each round and at the end, on {rows[0]['cpus'] if rows else '?'} CPUs: {'; '.join(loads)}", "",
       "| pairs | rounds | raw relay (round trips/s) | WebSocket relay (round trips/s) | nginx WebSocket proxy (round trips/s) | gateway loop CPU µs per round trip: raw / WebSocket | CPU ratio WebSocket / raw (median of rounds) | each round's CPU ratio | all gateway threads, µs per round trip: raw / WebSocket | nginx workers CPU µs per round trip | WebSocket relay / nginx WebSocket (round trips/s) |",
       "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
verdicts = []
for pairs in sys.argv[3].split():
    raw, ws, nginx = runs(f"gateway raw {pairs}"), runs(f"gateway websocket {pairs}"), runs(f"nginx websocket {pairs}")
    # Rounds pair up in order: each round ran one of each.
    ratios = [cpu(w, "gateway_loops_cpu_us_per_round_trip") / cpu(r, "gateway_loops_cpu_us_per_round_trip")
              for r, w in zip(raw, ws) if cpu(r, "gateway_loops_cpu_us_per_round_trip")]
    versus_nginx = [w["round_trips_per_second"] / n["round_trips_per_s"] for w, n in zip(ws, nginx) if n.get("round_trips_per_s")]
    ratio = median(ratios)
    versus = median(versus_nginx)
    verdicts.append(f"{pairs} pairs: WebSocket costs {ratio:.2f}× the raw path's gateway CPU per round trip ({'within' if ratio <= 1.10 else 'over'} the 1.10 bound); "
                    f"{versus:.2f}× nginx's WebSocket round trips ({'at or above' if versus >= 1.0 else 'below'} 1.0×)")
    out.append(f"| {pairs} | {len(ratios)} | {median([r['round_trips_per_second'] for r in raw]):.0f} | {median([r['round_trips_per_second'] for r in ws]):.0f} | "
               f"{median([n['round_trips_per_s'] for n in nginx]):.0f} | "
               f"{median([cpu(r, 'gateway_loops_cpu_us_per_round_trip') for r in raw]):.1f} / {median([cpu(r, 'gateway_loops_cpu_us_per_round_trip') for r in ws]):.1f} | "
               f"{ratio:.2f}× | {' '.join(f'{x:.2f}' for x in ratios)} | "
               f"{median([cpu(r, 'gateway_threads_cpu_us_per_round_trip') for r in raw]):.1f} / {median([cpu(r, 'gateway_threads_cpu_us_per_round_trip') for r in ws]):.1f} | "
               f"{median([n.get('server_cpu_us_per_rt', 0) for n in nginx]):.1f} | {median(versus_nginx):.2f}× |")
out += [""] + verdicts
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
