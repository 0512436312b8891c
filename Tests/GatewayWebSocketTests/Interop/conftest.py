"""Fixtures for the WebSocket interop test: the websocket-echo executable on a free port."""

import os
import subprocess

import pytest


def pytest_addoption(parser):
    parser.addoption("--echo-bin", required=True, help="path of the websocket-echo executable")
    parser.addoption("--node", default="node", help="the node executable")
    parser.addoption("--node-modules", required=True, help="the folder holding node's `ws` module (Debian's node-ws)")


@pytest.fixture(scope="session")
def node(request):
    """node's executable and an environment in which it loads `ws` (the make target installs both)."""
    executable = request.config.getoption("--node")
    environment = {**os.environ, "NODE_PATH": request.config.getoption("--node-modules")}
    try:
        found = subprocess.run([executable, "-e", "console.log(require.resolve('ws'))"], capture_output=True, text=True, env=environment, timeout=30)
    except FileNotFoundError:
        pytest.fail(f"{executable} is not installed (make websocket-interop installs Debian's nodejs)", pytrace=False)
    if found.returncode != 0:
        pytest.fail(f"node cannot load the `ws` module (make websocket-interop installs Debian's node-ws):\n{found.stderr}", pytrace=False)
    return executable, environment


@pytest.fixture(scope="session")
def echo_url(request):
    path = request.config.getoption("--echo-bin")
    assert os.access(path, os.X_OK), f"{path} is not an executable; run swift build --product websocket-echo"
    assets = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Sources", "GatewayWebClient")
    process = subprocess.Popen([path, "--origin", "https://pos.example", "--assets", assets], stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    assert line.startswith("port "), f"websocket-echo printed {line!r}"
    yield f"ws://127.0.0.1:{line.split()[1]}/readergateway/v1/websocket"
    process.terminate()
    process.wait()
