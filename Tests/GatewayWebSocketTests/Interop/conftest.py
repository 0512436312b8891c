"""Fixtures for the WebSocket interop test: the websocket-echo executable on a free port."""

import os
import subprocess

import pytest


def pytest_addoption(parser):
    parser.addoption("--echo-bin", required=True, help="path of the websocket-echo executable")


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
