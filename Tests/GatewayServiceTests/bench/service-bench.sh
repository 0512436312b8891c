#!/usr/bin/env bash
# Relayed command round trips through the gateway (lane → gateway → reader → gateway → lane,
# TLS on both legs) beside nginx relaying TLS on both legs (stream proxy, proxy_ssl on, in front
# of a TLS echo), 16 and 256 pairs/connections, same run, same machine; then connect
# arbitrations per second through the whole service (two lanes per reader, each connecting it in
# a loop of its own, so 16 claimants over 8 readers as pgbench's 16 clients) beside pgbench on
# the same PostgreSQL server, running what a connect sends (the claim with the reader's row, the
# ratio's peer) and the bare claim; each side's share of claims that took the reader over.
#
# The relay comparison runs ROUNDS (default 5) interleaved rounds (nginx then the gateway, at 16 then 256
# pairs, in each round) and reports medians: the ratio is the median of the rounds' ratios,
# so one disturbed round on a shared machine does not decide the result.
#
# RELAY_BASELINE=<another build's release bin dir> runs that build's service-bench beside this
# one's in every relay round (their order alternating round by round), reported as its own rows;
# SERVICE_BENCH_CONNECTS=0 leaves the connect arbitrations out.
#
#   Tests/GatewayServiceTests/bench/service-bench.sh <release bin dir> <results dir>
set -euo pipefail
BIN=$1; OUT=$2
RELAY_BASELINE=${RELAY_BASELINE:-}
SERVICE_BENCH_CONNECTS=${SERVICE_BENCH_CONNECTS:-1}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
ROUNDS=${ROUNDS:-5}
CONNECT_READERS=${CONNECT_READERS:-8}
PGBENCH=${PGBENCH:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)/pgbench}
mkdir -p "$OUT"
RAW="$OUT/service.jsonl"; : > "$RAW"
WORK=$(mktemp -d /tmp/service-bench.XXXXXX)
PIDS=()
cleanup() {
  [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
NGINX_PORT=18544; ECHO_PORT=18545
wait_port() { for _ in $(seq 1 200); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 did not open"; return 1; }

echo "== peer: nginx stream proxy (2 workers, TLS in, proxy_ssl to a TLS echo)"
"$BIN/transport-echo" --port $ECHO_PORT --dev-ca "$WORK/ca" --loops 2 --max-handshaking-per-source 1024 --log-level warning > /dev/null 2>&1 & PIDS+=($!)
wait_port $ECHO_PORT
for _ in $(seq 1 200); do [ -s "$WORK/ca/server-key.pem" ] && break; sleep 0.05; done
mkdir -p "$WORK/nginx/logs"
cat > "$WORK/nginx/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_stream_module.so;
worker_processes 2;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log error;
events { worker_connections 4096; use epoll; multi_accept on; }
stream {
    server {
        listen 127.0.0.1:$NGINX_PORT ssl reuseport;
        ssl_certificate     $WORK/ca/server.pem;
        ssl_certificate_key $WORK/ca/server-key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
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

for round in $(seq 1 "$ROUNDS"); do
  for pairs in 16 256; do
    echo "== round $round, $pairs pairs"
    "$BIN/transport-load" --mode rtt --port $NGINX_PORT --connections $pairs --size 64 --duration ${SECONDS_PER_RUN}s --warmup 1s \
      --server-pids "$NGINX_PIDS" --label "nginx proxy_ssl $pairs" --loops 2 | tee -a "$RAW"
    builds=("$BIN|gateway relay $pairs")
    if [ -n "$RELAY_BASELINE" ]; then
      if [ $((round % 2)) = 1 ]; then builds+=("$RELAY_BASELINE|baseline relay $pairs"); else builds=("$RELAY_BASELINE|baseline relay $pairs" "${builds[@]}"); fi
    fi
    for build in "${builds[@]}"; do
      echo "   load average $(cut -d' ' -f1-3 /proc/loadavg)"
      timeout 120 "${build%%|*}/service-bench" --pairs $pairs --duration ${SECONDS_PER_RUN}s --warmup 1s --label "${build#*|}" 2>/dev/null | tee -a "$RAW"
    done
  done
done

echo "== connect arbitrations: $CONNECT_READERS readers, two lanes each, beside pgbench ($ROUNDS interleaved rounds)"
# pg_stat_statements (when installed) counts the statements per connect.
PRELOAD=""
[ -f "$(dirname "$PGBENCH")/../lib/pg_stat_statements.so" ] && PRELOAD="shared_preload_libraries=pg_stat_statements"
# Twice: lanes on the client library (its tasks and streams), then lean lanes (transport
# handlers, as in the relay comparison), whose own CPU is closer to pgbench's.
for lanes in client lean; do
  [ "$SERVICE_BENCH_CONNECTS" = 0 ] && break
  TEST_POSTGRES_SETTINGS="$PRELOAD" timeout $((60 + ROUNDS * (3 * SECONDS_PER_RUN + 10))) "$BIN/service-bench" --mode connect --pairs "$CONNECT_READERS" \
    --duration ${SECONDS_PER_RUN}s --warmup 1s --rounds "$ROUNDS" --connect-lanes "$lanes" --pgbench "$PGBENCH" --label "gateway connect $lanes" \
    2> >(grep 'per connect' >&2) | tee -a "$RAW"
done

python3 - "$RAW" "$OUT/service.md" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
def rate(row): return row.get("round_trips_per_second") or row.get("round_trips_per_s") or 0
def median(values): return statistics.median(values) if values else 0
out = ["| pairs | rounds | gateway relay (round trips/s) | nginx proxy_ssl (round trips/s) | ratio (median of rounds) | each round's ratio | CPU µs per round trip: gateway loops / nginx workers | load µs per round trip: lanes + readers / transport-load (TLS echo not counted) |",
       "| --- | --- | --- | --- | --- | --- | --- | --- |"]
for pairs, build in [(p, b) for p in (16, 256) for b in ("gateway", "baseline")]:
    mine = [r for r in rows if r["label"] == f"{build} relay {pairs}"]
    if not mine: continue
    nginx = [r for r in rows if r["label"] == f"nginx proxy_ssl {pairs}"]
    # Rounds pair up in order: nginx then the gateway (and the baseline build).
    ratios = [rate(m) / rate(n) for m, n in zip(mine, nginx) if rate(n)]
    peer_load = [n["load_cpu_s"] * 1e6 / n["round_trips"] for n in nginx if n.get("round_trips")]
    out.append(f"| {pairs}{' (baseline build)' if build == 'baseline' else ''} | {len(ratios)} | {median([rate(r) for r in mine]):.0f} | {median([rate(r) for r in nginx]):.0f} | {median(ratios):.2f}× | "
               f"{' '.join(f'{r:.2f}' for r in ratios)} | "
               f"{median([r.get('gateway_loops_cpu_us_per_round_trip', 0) for r in mine]):.1f} / {median([r.get('server_cpu_us_per_rt', 0) for r in nginx]):.1f} | "
               f"{median([r.get('load_loops_cpu_us_per_round_trip', 0) for r in mine]):.1f} / {median(peer_load):.1f} |")
connect_rows = any(r["label"].startswith("gateway connect") for r in rows)
out += [] if not connect_rows else ["", "| lanes | readers × lanes | rounds | connects/s through the service | pgbench/s: what a connect sends / the bare claim (same server) | ratio (median of rounds) | each round's ratio | ratio to the bare claim (each round) | CPU µs per connect: bench process (gateway loops / store thread / lanes' and readers' loops / task pool) + PostgreSQL | CPU µs per pgbench run: pgbench + PostgreSQL (connect's statement / bare claim) | statements per connect | takeovers: service / pgbench (connect's statement / bare claim) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
for kind in ("client", "lean"):
    connects = [r for r in rows if r["label"] == f"gateway connect {kind}"]
    if not connects: continue
    c = connects[0]
    def m(key): return median([r.get(key, 0) for r in connects])
    each = " ".join("%.2f" % r["ratio"] for r in connects)
    bare = " ".join("%.2f" % r["ratio_to_bare_claim"] for r in connects)
    out.append(f"| {kind} | {c['readers']} × {c['lanes']} | {len(connects)} | {m('connects_per_second'):.0f} | "
               f"{m('pgbench_claims_per_second'):.0f} / {m('pgbench_bare_claim_claims_per_second'):.0f} | {m('ratio'):.2f}× | {each} | "
               f"{m('ratio_to_bare_claim'):.2f}× ({bare}) | {m('process_cpu_us_per_connect'):.0f} ({m('gateway_loops_cpu_us_per_connect'):.0f} / {m('store_thread_cpu_us_per_connect'):.0f} / "
               f"{m('load_loops_cpu_us_per_connect'):.0f} / {m('other_threads_cpu_us_per_connect'):.0f}) + {m('postgres_cpu_us_per_connect'):.0f} | "
               f"{m('pgbench_cpu_us_per_claim'):.0f} + {m('postgres_cpu_us_per_pgbench_claim'):.0f} / "
               f"{m('pgbench_bare_claim_cpu_us_per_claim'):.0f} + {m('postgres_cpu_us_per_pgbench_bare_claim_claim'):.0f} | {m('statements_per_connect'):.2f} | "
               f"{m('takeover_share'):.0%} / {m('pgbench_takeover_share'):.0%} / {m('pgbench_bare_claim_takeover_share'):.0%} |")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
