"""Runs the JavaScript client's tests (node's test runner) against fake_gateway.py.

    python run_client_tests.py --node node
"""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--node", default="node")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as protos:
        server = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "fake_gateway.py"), "--protos-out", protos],
            stdout=subprocess.PIPE, text=True,
        )
        try:
            line = server.stdout.readline()
            if not line.startswith("port "):
                sys.exit(f"the fake gateway did not start (it printed {line!r})")
            url = f"ws://127.0.0.1:{line.split()[1]}/readergateway/v1/websocket"
            version = subprocess.run([args.node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
            major, minor = (int(part) for part in version.lstrip("v").split(".")[:2])
            if (major, minor) < (18, 19):
                sys.exit(f"js-client-test needs node 18.19 or later; {args.node} is {version}. Pass NODE=/path/to/node.")
            # Node's own WebSocket client (behind a flag before node 22, none before 20.10);
            # where it is missing, the tests' small one (websocket_polyfill.mjs) stands in.
            flags = ["--import", os.path.join(HERE, "websocket_polyfill.mjs")]
            if (20, 10) <= (major, minor) < (22, 0):
                flags.insert(0, "--experimental-websocket")
            tests = sorted(os.path.join(HERE, name) for name in os.listdir(HERE) if name.endswith(".test.mjs"))
            result = subprocess.run([args.node, *flags, "--test", "--test-reporter=spec", "--test-timeout=20000", *tests], env={**os.environ, "GATEWAY_WS_URL": url})
            sys.exit(result.returncode)
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
