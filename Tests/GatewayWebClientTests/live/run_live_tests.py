"""Runs live.test.mjs (node's test runner) against a real reader-gateway and reader-sim.

    python run_live_tests.py --bin-dir "$(swift build --show-bin-path)" --node node

The gateway runs on an embedded PostgreSQL in a temporary directory (its development
account and CA), with the WebSocket binding open to one origin; the simulator attaches
one reader, whose registration code the test uses.
"""

import argparse
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))


class Child:
    """A child process whose output lines are read on a thread, so waits have deadlines."""

    def __init__(self, name, arguments, log_directory, stdin=False, cwd=None, env=None):
        self.name = name
        self.lines = queue.Queue()
        self.log = open(os.path.join(log_directory, f"{name}.log"), "w")
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        stdin=subprocess.PIPE if stdin else None, cwd=cwd, env=env)
        threading.Thread(target=self._pump, daemon=True).start()

    def send(self, line):
        """Writes a line to the child's stdin (started with stdin=True)."""
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def _pump(self):
        for line in self.process.stdout:
            self.log.write(line)
            self.log.flush()
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, pattern, timeout=90):
        """The first match of `pattern` in a line still to come; exits the run when none comes in time."""
        expression = re.compile(pattern)
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                sys.exit(f"{self.name}: no line matching {pattern!r} within {timeout}s (log: {self.log.name})")
            if line is None:
                sys.exit(f"{self.name} exited before printing {pattern!r} (log: {self.log.name})")
            match = expression.search(line)
            if match:
                return match

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--node", default="node")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs)")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="rg-js-live-")
    os.chmod(directory, 0o777)  # the embedded PostgreSQL runs as its own user when started by root
    children = []
    code = 1
    try:
        gateway = Child("reader-gateway", [
            os.path.join(args.bin_dir, "reader-gateway"), "--data-dir", os.path.join(directory, "data"),
            "--port", "0", "--internal-port", "0", "--websocket-origins", "https://pos.example.com",
        ], directory)
        children.append(gateway)
        port = gateway.wait_for(r"gateway listening\"? address=127\.0\.0\.1:(\d+)").group(1)
        secret = gateway.wait_for(r"secret key: (sk_\S+)").group(1)
        ca = os.path.join(directory, "data", "tls", "ca.pem")
        simulator = Child("reader-sim", [
            os.path.join(args.bin_dir, "reader-sim"), "--gateway", f"127.0.0.1:{port}", "--ca", ca,
            "--serial", "WSLIVE-1", "--heartbeat-interval", "500ms", "--collect-duration", "120s",
        ], directory)
        children.append(simulator)
        code_match = simulator.wait_for(r"registration_code serial=WSLIVE-1 code=(\S+)")
        environment = {
            **os.environ,
            "NODE_EXTRA_CA_CERTS": ca,
            "GATEWAY_JS": f"https://127.0.0.1:{port}/readergateway/v1/js/readergateway.js",
            "GATEWAY_WS_URL": f"wss://127.0.0.1:{port}/readergateway/v1/websocket",
            "GATEWAY_SECRET_KEY": secret,
            "READER_REGISTRATION_CODE": code_match.group(1),
        }
        version = subprocess.run([args.node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
        major = int(version.lstrip("v").split(".")[0])
        # node 20: WebSocket and https: imports behind flags (WebSocket is on from node 22).
        flags = ["--experimental-network-imports"]
        if major < 22:
            flags.insert(0, "--experimental-websocket")
        result = subprocess.run([args.node, *flags, "--test", "--test-reporter=spec", "--test-timeout=60000", os.path.join(HERE, "live.test.mjs")], env=environment)
        code = result.returncode
    finally:
        for child in reversed(children):
            child.stop()
        if args.keep or code != 0:
            print(f"js-live-test: logs in {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
