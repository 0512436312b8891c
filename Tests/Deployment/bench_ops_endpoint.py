"""Benchmark of the ops endpoint, beside nginx serving the same bytes.

Starts reader-gateway (release build, embedded PostgreSQL in a temporary
directory), waits for /readyz, saves its /metrics body, serves that body
and a /healthz file from nginx with keep-alive off (the ops endpoint closes
every connection too), and loads both with wrk on loopback. Prints and
writes requests per second and the ratio to nginx.

    make bench            (runs this as the ops-endpoint suite)
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
DURATION = os.environ.get("OPS_BENCH_DURATION", "5s")
CONNECTIONS = os.environ.get("OPS_BENCH_CONNECTIONS", "8")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(port: int, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def wrk(port: int, path: str) -> tuple[float, str]:
    command = ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{DURATION}", "--latency", f"http://127.0.0.1:{port}{path}"]
    output = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout
    match = re.search(r"Requests/sec:\s+([\d.]+)", output)
    if not match:
        raise SystemExit(f"wrk printed no Requests/sec:\n{output}")
    p99 = re.search(r"99%\s+(\S+)", output)
    return float(match.group(1)), p99.group(1) if p99 else "?"


def main() -> int:
    binary = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / ".build" / "release" / "reader-gateway")
    results = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else ROOT / "bench-results")
    results.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="reader-gateway-bench-"))
    work.chmod(0o755)  # the embedded PostgreSQL runs as postgres when started by root
    ops_port, nginx_port = free_port(), free_port()
    gateway = subprocess.Popen(
        [str(binary), "--ops-port", str(ops_port), "--data-dir", str(work / "data"), "--log-level", "warning"],
        stdout=subprocess.DEVNULL, stderr=open(work / "gateway.log", "w"),
    )
    nginx = None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if gateway.poll() is not None:
                raise SystemExit("reader-gateway exited:\n" + (work / "gateway.log").read_text())
            try:
                if get(ops_port, "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        else:
            raise SystemExit("reader-gateway did not turn ready within 60 s")

        site = work / "site"
        site.mkdir()
        (site / "metrics").write_bytes(get(ops_port, "/metrics")[1])
        (site / "healthz").write_bytes(get(ops_port, "/healthz")[1])
        (work / "nginx.conf").write_text(f"""
worker_processes 1;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    keepalive_timeout 0;
    default_type text/plain;
    client_body_temp_path {work}/tmp; proxy_temp_path {work}/tmp; fastcgi_temp_path {work}/tmp;
    uwsgi_temp_path {work}/tmp; scgi_temp_path {work}/tmp;
    server {{ listen 127.0.0.1:{nginx_port}; root {site}; }}
}}
""")
        nginx = subprocess.Popen([shutil.which("nginx") or "/usr/sbin/nginx", "-c", str(work / "nginx.conf")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if get(nginx_port, "/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        metrics_size = (site / "metrics").stat().st_size

        lines = [
            "# ops endpoint beside nginx (same bytes, keep-alive off on both), wrk on loopback",
            f"# wrk -t1 -c{CONNECTIONS} -d{DURATION} --latency http://127.0.0.1:PORT/PATH   (/metrics body: {metrics_size} bytes)",
            f"{'path':<10} {'ops req/s':>12} {'nginx req/s':>12} {'ratio':>7} {'ops p99':>9} {'nginx p99':>10}",
        ]
        for path in ["/healthz", "/metrics"]:
            ours, ours_p99 = wrk(ops_port, path)
            peer, peer_p99 = wrk(nginx_port, path)
            lines.append(f"{path:<10} {ours:>12.0f} {peer:>12.0f} {ours / peer:>7.2f} {ours_p99:>9} {peer_p99:>10}")
        report = "\n".join(lines) + "\n"
        print(report, end="")
        (results / "ops-endpoint.txt").write_text(report)
        return 0
    finally:
        for process in (nginx, gateway):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
