#!/usr/bin/env bash
# A slowloris flood against the gateway beside the same flood against nginx (stream, TLS in,
# proxy_ssl to a TLS echo), same sources, same machine, same run. In each of ROUNDS interleaved
# rounds (nginx, then the gateway), flood-bench measures 16 existing clients' call latency and
# 50 new clients' time to their first call, first without a flood and then during a flood of
# FLOOD_SILENT silent and FLOOD_PARTIAL half-hello sockets from 10 loopback addresses
# (transport-flood at nice 19, re-opening each socket the server closes, up to 5,000 a second), and the
# server's CPU and resident memory before, during and 30 s after. Medians over the rounds.
# The calls differ: the gateway's are OpenSession (new clients; a PostgreSQL write) and
# Heartbeat (existing ones), nginx's a 64-byte echo; compare each server's flood figures with
# its own no-flood figures.
#
#   Tests/GatewayServiceTests/bench/flood-bench.sh <release bin dir> <results dir>
set -euo pipefail
BIN=$1; OUT=$2
ROUNDS=${ROUNDS:-3}
FLOOD_SILENT=${FLOOD_SILENT:-7000}
FLOOD_PARTIAL=${FLOOD_PARTIAL:-3000}
AFTER_SECONDS=${AFTER_SECONDS:-30}
mkdir -p "$OUT"
RAW="$OUT/flood.jsonl"; : > "$RAW"
WORK=$(mktemp -d /tmp/flood-bench.XXXXXX)
chmod 755 "$WORK"   # the embedded PostgreSQL runs as the postgres user when we are root
PIDS=()
cleanup() {
  [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
GATEWAY_PORT=18643; NGINX_PORT=18644; ECHO_PORT=18645
wait_port() { for _ in $(seq 1 400); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 did not open"; return 1; }

echo "== the gateway (embedded PostgreSQL, defaults: 1,024 handshakes, 64 per address)"
"$BIN/reader-gateway" --data-dir "$WORK/gateway" --port $GATEWAY_PORT --internal-port 0 --log-level warning > "$WORK/gateway.log" 2>&1 &
GATEWAY_PID=$!; PIDS+=($GATEWAY_PID)
wait_port $GATEWAY_PORT
for _ in $(seq 1 200); do grep -q "secret key:" "$WORK/gateway.log" && break; sleep 0.05; done
SECRET=$(sed -n 's/.*secret key: *//p' "$WORK/gateway.log" | head -1)
CA="$WORK/gateway/tls/ca.pem"
export GATEWAYCTL_GATEWAY=127.0.0.1:$GATEWAY_PORT GATEWAYCTL_CA=$CA GATEWAYCTL_SECRET_KEY=$SECRET
LOCATION=$("$BIN/gatewayctl" --json locations create "Flood bench" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("id") or d["location"]["id"])')
TOKEN=$("$BIN/gatewayctl" --json tokens create --location "$LOCATION" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("secret") or d.get("token") or d["connection_token"])')

echo "== peer: nginx stream (2 workers, TLS in, proxy_ssl to a TLS echo)"
"$BIN/transport-echo" --port $ECHO_PORT --dev-ca "$WORK/ca" --loops 2 --log-level warning > /dev/null 2>&1 & PIDS+=($!)
wait_port $ECHO_PORT
for _ in $(seq 1 200); do [ -s "$WORK/ca/server-key.pem" ] && break; sleep 0.05; done
mkdir -p "$WORK/nginx/logs"
cat > "$WORK/nginx/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_stream_module.so;
worker_processes 2;
worker_rlimit_nofile 20000;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log crit;
events { worker_connections 16000; use epoll; multi_accept on; }
stream {
    server {
        listen 127.0.0.1:$NGINX_PORT ssl reuseport backlog=4096;
        ssl_certificate     $WORK/ca/server.pem;
        ssl_certificate_key $WORK/ca/server-key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_handshake_timeout 10s;
        proxy_ssl_protocols TLSv1.2 TLSv1.3;
        proxy_pass 127.0.0.1:$ECHO_PORT;
        proxy_ssl on;
        tcp_nodelay on;
        proxy_timeout 10m;
    }
}
CONF
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf"
wait_port $NGINX_PORT
NGINX_PIDS=$(pgrep -d, -P "$(cat "$WORK/nginx/nginx.pid")")

COMMON=(--flood "$BIN/transport-flood" --silent "$FLOOD_SILENT" --partial "$FLOOD_PARTIAL" --sources 10 --after-seconds "$AFTER_SECONDS")
for round in $(seq 1 "$ROUNDS"); do
  echo "== round $round: nginx"
  "$BIN/flood-bench" --target echo --port $NGINX_PORT --ca "$WORK/ca/ca.pem" --server-pid "$NGINX_PIDS" --label "nginx" "${COMMON[@]}" | tee -a "$RAW"
  echo "== round $round: gateway"
  "$BIN/flood-bench" --target gateway --port $GATEWAY_PORT --ca "$CA" --token "$TOKEN" --server-pid "$GATEWAY_PID" --label "gateway" "${COMMON[@]}" | tee -a "$RAW"
done

python3 - "$RAW" "$OUT/flood.md" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
def med(label, key):
    values = [r[key] for r in rows if r["label"] == label]
    return statistics.median(values) if values else 0
def each(label, key, fmt="{:.0f}"):
    return " ".join(fmt.format(r[key]) for r in rows if r["label"] == label)
sockets = rows[0]["flood_sockets"] if rows else 0
out = [f"Flood: {sockets} sockets ({rows[0]['flood_sources'] if rows else 0} source addresses), medians of {len(rows)//2} interleaved rounds.", "",
       "| | new client's first call, p50 / p99 (ms): no flood → flood | flood p99 / no-flood p99 | new clients failed | existing clients' p99 (ms): no flood → flood | flood / no flood | server CPU during the flood (% of a core) | server RSS (MB): before / during / 30 s after | after / before |",
       "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
for label in ("gateway", "nginx"):
    before, during = med(label, "existing_p99_before_ms"), med(label, "existing_p99_during_ms")
    rss = [med(label, k) / 1024 for k in ("server_rss_before_kb", "server_rss_during_kb", "server_rss_after_kb")]
    calm, flooded = med(label, 'new_client_before_p99_ms'), med(label, 'new_client_p99_ms')
    out.append(f"| {label} | {med(label, 'new_client_before_p50_ms'):.1f} / {calm:.1f} → {med(label, 'new_client_p50_ms'):.1f} / {flooded:.1f} | {flooded / calm if calm else 0:.2f}× | "
               f"{med(label, 'new_client_failures'):.0f} of {med(label, 'new_client_attempts'):.0f} | {before:.2f} → {during:.2f} | {during / before if before else 0:.2f}× | "
               f"{med(label, 'server_cpu_percent_during'):.0f} | {rss[0]:.1f} / {rss[1]:.1f} / {rss[2]:.1f} | {rss[2] / rss[0] if rss[0] else 0:.2f}× |")
g99, n99 = med("gateway", "new_client_p99_ms"), med("nginx", "new_client_p99_ms")
out += ["", f"New client p99, gateway / nginx: {g99 / n99 if n99 else 0:.2f}×. Each round's new-client p99 (ms): gateway {each('gateway', 'new_client_p99_ms', '{:.1f}')}; nginx {each('nginx', 'new_client_p99_ms', '{:.1f}')}.",
        f"Flood sockets the server closed, per round: gateway {each('gateway', 'flood_closed_by_server')}; nginx {each('nginx', 'flood_closed_by_server')}."]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
