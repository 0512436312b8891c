#!/usr/bin/env python3
"""Turns transport-load's JSON lines into the benchmark table: medians of the runs, ours
beside the peer measured in the same run, as ratios."""
import json
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("{"):
        record = json.loads(line)
        runs[record["label"]].append(record)

def median(label, field):
    values = [r[field] for r in runs.get(label, []) if field in r]
    return statistics.median(values) if values else None

def fmt(value, digits=0):
    return "n/a" if value is None else f"{value:,.{digits}f}"

def ratio(a, b):
    return "n/a" if not a or not b else f"{a / b:.2f}x"

print("## Transport benchmark (medians of %d runs; load generator: transport-load, 2 threads)\n" % max((len(v) for v in runs.values()), default=0))
print("### Round trips, 200-byte request/response, closed loop (ours: 2 loops; nginx: 2 workers, TLS in, plain echo behind)\n")
print("| connections | ours rt/s | nginx rt/s | ratio | ours p50 / p99 ms | nginx p50 / p99 ms | ours CPU µs/rt | nginx CPU µs/rt |")
print("|---|---|---|---|---|---|---|---|")
for connections in (16, 256, 2000):
    ours, nginx = f"ours rtt {connections}", f"nginx rtt {connections}"
    print(f"| {connections} | {fmt(median(ours, 'round_trips_per_s'))} | {fmt(median(nginx, 'round_trips_per_s'))} "
          f"| {ratio(median(ours, 'round_trips_per_s'), median(nginx, 'round_trips_per_s'))} "
          f"| {fmt(median(ours, 'p50_ms'), 2)} / {fmt(median(ours, 'p99_ms'), 2)} "
          f"| {fmt(median(nginx, 'p50_ms'), 2)} / {fmt(median(nginx, 'p99_ms'), 2)} "
          f"| {fmt(median(ours, 'server_cpu_us_per_rt'), 1)} | {fmt(median(nginx, 'server_cpu_us_per_rt'), 1)} |")

print("\n### New TLS 1.3 handshakes per second, ECDSA P-256, 64 in flight\n")
print("| server | handshakes/s | ratio vs openssl s_server | server CPU ms/handshake |")
print("|---|---|---|---|")
base = median("s_server handshake", "handshakes_per_s")
for label, name in (("s_server handshake", "openssl s_server (1 thread)"), ("ours-1loop handshake", "ours, 1 loop"),
                    ("ours handshake", "ours, 2 loops"), ("nginx handshake", "nginx, 2 workers")):
    print(f"| {name} | {fmt(median(label, 'handshakes_per_s'))} | {ratio(median(label, 'handshakes_per_s'), base)} "
          f"| {fmt(median(label, 'server_cpu_ms_per_handshake'), 3)} |")

print("\n### Idle TLS connections: server resident memory per connection\n")
print("| server | connections held | KiB per connection | ratio vs nginx |")
print("|---|---|---|---|")
nginx_kib = median("nginx idle", "server_kib_per_connection")
for label, name in (("ours idle", "ours"), ("nginx idle", "nginx stream proxy")):
    print(f"| {name} | {fmt(median(label, 'held'))} | {fmt(median(label, 'server_kib_per_connection'), 1)} "
          f"| {ratio(median(label, 'server_kib_per_connection'), nginx_kib)} |")
