#!/usr/bin/env bash
# Webhook delivery throughput: one reader-gateway (release build) on a throwaway PostgreSQL,
# one endpoint at the test receiver (Python http.server + ssl, one TLS connection per POST),
# N events written at once (gateway_event_append over 100 readers); how long until every
# delivery is acknowledged, the events per second, and the gateway's CPU per delivery.
# Delivery is bounded at 4 requests in flight per endpoint and replica (the default).
#
#   Tests/GatewayServiceTests/bench/webhook-bench.sh <reader-gateway> <gatewayctl> [EVENTS]
set -euo pipefail
GATEWAY=$1; CTL=$2; EVENTS=${3:-2000}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
source "$(dirname "$0")/postgres.sh"
DIR=$(mktemp -d /tmp/webhook-bench.XXXXXX)
chmod 755 "$DIR"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; bench_postgres_stop "$DIR"; rm -rf "$DIR"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PGPORT=$(free_port)
bench_postgres_start "$DIR" "$PGPORT" "max_connections = 100"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$DIR/key.pem" -out "$DIR/cert.pem" -days 1 \
  -subj /CN=localhost -addext subjectAltName=DNS:localhost >/dev/null 2>&1
echo '{}' > "$DIR/control.json"
python3 "$ROOT/Sources/GatewayTestSupport/Webhooks/webhook_receiver.py" "$DIR/cert.pem" "$DIR/key.pem" "$DIR/requests.jsonl" "$DIR/control.json" > "$DIR/receiver.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do grep -q "listening port=" "$DIR/receiver.log" && break; sleep 0.05; done
RPORT=$(sed -n 's/.*listening port=\([0-9]*\).*/\1/p' "$DIR/receiver.log")
GPORT=$(free_port)
"$GATEWAY" --database-url "$DB" --port "$GPORT" --internal-port 0 --node-name bench --tls-cert "$DIR/cert.pem" --tls-key "$DIR/key.pem" \
  --webhook-allow-private-addresses --webhook-ca-file "$DIR/cert.pem" --log-level warning > "$DIR/gateway.log" 2>&1 &
GPID=$!
pids+=($GPID)
for _ in $(seq 1 300); do "$PGBIN/psql" -X -q "$DB" -c "SELECT 1 FROM webhook_endpoints LIMIT 1" >/dev/null 2>&1 && break; sleep 0.1; done
KEY=$("$CTL" accounts create --database-url "$DB" --name bench | sed -n 's/^secret key: //p')
ACCOUNT=$("$PGBIN/psql" -X -A -t "$DB" -c "SELECT id FROM accounts LIMIT 1")
ctl() { "$CTL" --gateway "127.0.0.1:$GPORT" --ca "$DIR/cert.pem" --server-name localhost --secret-key "$KEY" "$@"; }
for _ in $(seq 1 200); do ctl webhooks list >/dev/null 2>&1 && break; sleep 0.1; done
ctl webhooks create --url "https://localhost:$RPORT/bench" >/dev/null
cpu() { awk '{print $14 + $15}' "/proc/$GPID/stat"; }
ticks=$(getconf CLK_TCK)
cpu_before=$(cpu)
start=$(date +%s.%N)
"$PGBIN/psql" -X -q "$DB" -c "SELECT count(gateway_event_append('$ACCOUNT', 'reader.online', 'tmr_' || (i % 100), NULL, '{}'::jsonb)) FROM generate_series(1, $EVENTS) i" >/dev/null
delivered=0
for _ in $(seq 1 6000); do
  delivered=$("$PGBIN/psql" -X -A -t "$DB" -c "SELECT count(*) FROM webhook_deliveries WHERE state = 'delivered'")
  [ "$delivered" -ge "$EVENTS" ] && break
  sleep 0.1
done
end=$(date +%s.%N)
cpu_after=$(cpu)
python3 - "$EVENTS" "$delivered" "$start" "$end" "$cpu_before" "$cpu_after" "$ticks" "$(wc -l < "$DIR/requests.jsonl")" <<'PY'
import sys
events, delivered, start, end, before, after, ticks, requests = sys.argv[1:]
seconds = float(end) - float(start)
cpu = (int(after) - int(before)) / int(ticks)
print(f"webhook-bench: {delivered} of {events} events delivered in {seconds:.1f} s: {int(delivered) / seconds:.0f} events/s "
      f"({requests} POSTs received); gateway CPU {cpu:.2f} s, {1e6 * cpu / max(1, int(delivered)):.0f} µs per delivery")
PY
