#!/usr/bin/env python3
"""A webhook receiver for the tests: HTTPS on 127.0.0.1 at a port the system picks.

    webhook_receiver.py CERT KEY LOG CONTROL

Prints "listening port=N" once it accepts connections. Every request is appended to LOG as
one JSON line before it is answered: its path, its ReaderGateway-Signature header, its body
(base64) and the mode it is answered in. CONTROL is a JSON object mapping a path to a mode,
read at every request (a path not in it is "ok"):

    ok     answer 204
    fail   answer 500
    hold   wait until CONTROL no longer says hold for the path (at most 120 s), then answer 204:
           an endpoint that answers late, or not within the gateway's timeout
    close  close the connection without answering
"""
import base64
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CERT, KEY, LOG, CONTROL = sys.argv[1:5]
LOCK = threading.Lock()


def mode(path):
    try:
        with open(CONTROL) as control:
            return json.load(control).get(path, "ok")
    except (OSError, ValueError):
        return "ok"


class Receiver(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        # The TLS handshake runs on this connection's own thread: a client that stalls in it
        # (a paused process) holds up neither the accept loop nor the other connections.
        self.request.do_handshake()
        super().setup()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        answer = mode(self.path)
        with LOCK, open(LOG, "a") as log:
            log.write(json.dumps({
                "path": self.path,
                "signature": self.headers.get("ReaderGateway-Signature", ""),
                "content_type": self.headers.get("Content-Type", ""),
                "body": base64.b64encode(body).decode(),
                "mode": answer,
            }) + "\n")
        if answer == "close":
            self.close_connection = True
            self.connection.close()
            return
        if answer == "hold":
            deadline = time.monotonic() + 120
            while mode(self.path) == "hold" and time.monotonic() < deadline:
                time.sleep(0.02)
        status = 500 if answer == "fail" else 204
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()

    def log_message(self, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    # Many replicas connect at once: a short accept queue would drop their connections.
    request_queue_size = 256

    def handle_error(self, request, client_address):
        # A handshake or connection the client gave up on (killed, paused, timed out): one line.
        print(f"connection from {client_address[0]}:{client_address[1]} ended: {sys.exc_info()[1]!r}", file=sys.stderr, flush=True)


server = Server(("127.0.0.1", 0), Receiver)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.minimum_version = ssl.TLSVersion.TLSv1_2
context.load_cert_chain(CERT, KEY)
server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
print(f"listening port={server.server_address[1]}", flush=True)
server.serve_forever()
