"""The Swift WebSocket binding (websocket-echo: WebSocketServerSession on a TCP socket)
against an independent client, Python's `websockets`, and against raw bytes.

The echo sends every protocol frame back; everything else is the binding's own doing.
"""

import base64
import os
import socket
import struct
from urllib.parse import urlparse

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

SUBPROTOCOL = "readergateway.v1"
SETTINGS = bytes.fromhex("000000020000000000000801")
PING = bytes.fromhex("00000008060000000000") + bytes(8)


def frame(frame_type, stream_id, payload=b""):
    return struct.pack(">IBBI", len(payload), frame_type, 0, stream_id) + payload


def open_socket(echo_url):
    return connect(echo_url, subprotocols=[SUBPROTOCOL], max_size=None, open_timeout=5, close_timeout=5)


def close_code(ws):
    with pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=5)
    return closed.value.rcvd.code if closed.value.rcvd else None


def test_upgrade_selects_the_subprotocol_and_frames_come_back(echo_url):
    with open_socket(echo_url) as ws:
        assert ws.subprotocol == SUBPROTOCOL
        ws.send(SETTINGS)
        assert ws.recv(timeout=5) == SETTINGS
        big = frame(2, 1, os.urandom(60000))
        ws.send(big)
        assert ws.recv(timeout=5) == big


def test_fragmented_message_is_reassembled(echo_url):
    message = frame(2, 1, bytes(range(256)) * 10)
    with open_socket(echo_url) as ws:
        ws.send([message[:7], message[7:100], message[100:]])
        assert ws.recv(timeout=5) == message


def test_websocket_ping_gets_a_pong(echo_url):
    with open_socket(echo_url) as ws:
        assert ws.ping(b"are you there").wait(timeout=5)


def test_client_close_is_echoed(echo_url):
    with open_socket(echo_url) as ws:
        ws.close(code=1000, reason="done")
        assert ws.protocol.close_rcvd.code == 1000
        assert ws.protocol.close_rcvd_then_sent is False  # the client closed first; the echo answered


@pytest.mark.parametrize("message,code", [
    ("text", 1003),
    (frame(2, 1, bytes(65537)), 1009),
    (SETTINGS + PING, 1002),
    (SETTINGS[:5], 1002),
])
def test_bad_messages_get_their_close_code(echo_url, message, code):
    with open_socket(echo_url) as ws:
        ws.send(message)
        assert close_code(ws) == code


@pytest.mark.parametrize("headers,subprotocols,status", [
    ({"Origin": "https://evil.example"}, [SUBPROTOCOL], 403),
    ({"Origin": "https://pos.example"}, [SUBPROTOCOL], 101),
    ({}, ["chat"], 400),
    ({}, None, 400),
])
def test_handshake_refusals(echo_url, headers, subprotocols, status):
    try:
        with connect(echo_url, additional_headers=headers, subprotocols=subprotocols, open_timeout=5) as ws:
            assert status == 101
            ws.send(SETTINGS)
            assert ws.recv(timeout=5) == SETTINGS
    except InvalidStatus as refused:
        assert refused.response.status_code == status


def raw_exchange(echo_url, data):
    url = urlparse(echo_url)
    with socket.create_connection((url.hostname, url.port), timeout=5) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def request(path="/readergateway/v1/websocket", version="13"):
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET {path} HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: {version}\r\nSec-WebSocket-Protocol: {SUBPROTOCOL}\r\n\r\n").encode()


def test_the_browser_library_is_served_under_its_prefix(echo_url):
    url = urlparse(echo_url)
    library = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Sources", "GatewayWebClient", "readergateway.js")
    response = raw_exchange(echo_url, b"GET /readergateway/v1/js/readergateway.js HTTP/1.1\r\nHost: localhost\r\n\r\n")
    head, _, body = response.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"\r\nContent-Type: text/javascript; charset=utf-8\r\n" in head
    with open(library, "rb") as handle:
        assert body == handle.read()
    missing = raw_exchange(echo_url, b"GET /readergateway/v1/js/nothing.js HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert missing.startswith(b"HTTP/1.1 404 ")
    escape = raw_exchange(echo_url, b"GET /readergateway/v1/js/../../etc/passwd HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert escape.startswith(b"HTTP/1.1 404 ")


def test_wrong_version_gets_426_naming_version_13(echo_url):
    response = raw_exchange(echo_url, request(version="8")).decode()
    assert response.startswith("HTTP/1.1 426 Upgrade Required\r\n")
    assert "\r\nSec-WebSocket-Version: 13\r\n" in response


def test_other_path_gets_404(echo_url):
    assert raw_exchange(echo_url, request(path="/other")).startswith(b"HTTP/1.1 404 ")


def test_endless_head_gets_431(echo_url):
    head = b"GET /readergateway/v1/websocket HTTP/1.1\r\n" + b"X-Filler: " + b"a" * 9000
    assert raw_exchange(echo_url, head).startswith(b"HTTP/1.1 431 ")


def test_unmasked_frame_gets_close_1002(echo_url):
    response = raw_exchange(echo_url, request() + b"\x82\x0c" + SETTINGS)
    head, _, rest = response.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101 ")
    assert rest[0] == 0x88 and rest[2:4] == b"\x03\xea"


# node's `ws` client (the npm package, from Debian's node-ws): an independent implementation
# that runs on any node Debian ships.
NODE_CLIENT = r"""
const WebSocket = require("ws");
const [url, mode] = process.argv.slice(1); // node -e CODE URL MODE
const ws = new WebSocket(url, ["readergateway.v1"]);
ws.on("open", () => {
  if (mode === "text") ws.send("hello");
  else ws.send(Buffer.from([0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 8, 1]));
});
ws.on("message", (data, isBinary) => {
  console.log(`message ${isBinary ? "binary" : "text"} ${ws.protocol} ${Buffer.from(data).toString("hex")}`);
  ws.close(1000);
});
ws.on("error", (error) => console.log(`error ${error.message}`));
ws.on("close", (code) => console.log(`close ${code}`));
"""


@pytest.mark.parametrize("mode,expected", [
    ("binary", ["message binary readergateway.v1 000000020000000000000801", "close 1000"]),
    ("text", ["close 1003"]),
])
def test_node_websocket_client(echo_url, node, mode, expected):
    import subprocess

    executable, environment = node
    result = subprocess.run([executable, "-e", NODE_CLIENT, echo_url, mode], capture_output=True, text=True, timeout=20, env=environment)
    assert result.stdout.split("\n")[:-1] == expected, result.stderr
