"""A small gateway double for the JavaScript client's tests: the protocol of
proto/PROTOCOL.md over WebSocket (one frame per binary message, subprotocol
readergateway.v1), answering canned responses, with scenarios the tests trigger.

    python fake_gateway.py --protos-out DIR      prints "port N" once listening

Scenarios, chosen by the request:
- URL query `scenario=silent-pings`: PINGs are never answered (keepalive).
- URL query `scenario=garbage`: after SETTINGS, a message that is not one frame.
- OpenSession with connection token `pst_bad`: UNAUTHENTICATED / CONNECTION_TOKEN_INVALID.
- ConnectReader of `tmr_busy` with fail_if_in_use: ABORTED / READER_BUSY.
- DiscoverReaders with a filter: the canned readers it names (by id or serial), maybe none;
  at location `tml_old` the filter is ignored (a replica of a release before it).
- EasyConnect: the canned reader its filter names, as ConnectReader (discovery `disc_2`);
  `tmr_busy` with fail_if_in_use: ABORTED / READER_BUSY; none: NOT_FOUND / READER_NOT_FOUND.
- CollectPaymentMethod: waits for CancelCollectPaymentMethod (then CANCELLED /
  COMMAND_CANCELED), except for payment intent `pi_ok`, answered at once, and
  `pi_declined`: FAILED_PRECONDITION / CARD_DECLINED with decline code insufficient_funds.
- ConfirmPaymentIntent: succeeded with 1999 received; for `pi_huge`, 2^60 (beyond a JS number).
- SetReaderDisplay with cart currency `take`: the session's reader is taken by "Lane 2"
  (a ReaderDisconnected REPLACED event), `blip`: the connection is cut (once per session) without a
  close frame, `goaway`: GOAWAY (last stream id = this call), then the call succeeds.
- URL query `scenario=two-streams`: SETTINGS max_concurrent_streams 2, enforced.
- /readergateway.testing.Control/Stream streams {count} messages of {size} bytes, honouring
  the client's flow-control windows (it stalls unless the client returns credit);
  /readergateway.testing.Control/Hold answers after a moment.
- /readergateway.testing.Control/Slow never answers; /readergateway.testing.Control/Log
  answers (as JSON bytes) the CANCEL frames received and the connections seen.
- FleetAdmin/ListReaderOwnership needs `authorization: Bearer sk_test`.
"""

import argparse
import asyncio
import importlib
import json
import os
import struct
import subprocess
import sys
from http import HTTPStatus
from urllib.parse import parse_qs, urlparse

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

HEADER = struct.Struct(">IBBI")
SETTINGS, CALL_START, MESSAGE, HALF_CLOSE, END_OF_CALL, CANCEL, PING, GOAWAY, WINDOW_UPDATE = range(9)
PATH = "/readergateway/v1/websocket"
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

pb = {}


def load_protos(out):
    protos = ["errors", "common", "frames", "sdk", "admin"]
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{os.path.join(REPO, 'proto')}", f"--python_out={out}"]
        + [f"readergateway/v1/{name}.proto" for name in protos],
        check=True,
    )
    sys.path.insert(0, out)
    for name in protos:
        pb[name] = importlib.import_module(f"readergateway.v1.{name}_pb2")


def frame(frame_type, stream_id, payload=b"", flags=0):
    return HEADER.pack(len(payload), frame_type, flags, stream_id) + payload


class World:
    """What outlives a connection: sessions (for resume) and the log."""

    def __init__(self):
        self.sessions = {}  # token -> {"reader": Reader | None, "events": [(connection, stream id)], "collect": Future | None}
        self.log = {"cancels": [], "connections": 0, "resumes": 0}
        self.next_session = 1


world = World()


class Connection:
    def __init__(self, socket, scenario):
        self.socket = socket
        self.scenario = scenario
        self.connection_window = 1 << 20  # the client's initial_connection_window (default)
        self.credit = asyncio.Condition()
        self.calls = {}  # stream id -> {"method", "messages", "metadata", "task"}
        self.closed = False

    async def send(self, data):
        if not self.closed:
            try:
                await self.socket.send(data)
            except Exception:
                self.closed = True

    async def end(self, stream_id, code=0, reason=0, message="", decline_code=""):
        status = pb["errors"].Status(code=code, reason=reason, message=message, decline_code=decline_code)
        await self.send(frame(END_OF_CALL, stream_id, pb["frames"].CallEnd(status=status).SerializeToString()))

    async def reply(self, stream_id, response):
        await self.send(frame(MESSAGE, stream_id, response.SerializeToString()))
        await self.end(stream_id)

    async def run(self):
        world.log["connections"] += 1
        settings = pb["frames"].Settings(protocol_version=1)
        if self.scenario == "two-streams":
            settings.max_concurrent_streams = 2
        await self.send(frame(SETTINGS, 0, settings.SerializeToString()))
        if self.scenario == "garbage":
            await self.send(b"\x00\x00\x00\x05\x02")
        async for data in self.socket:
            if isinstance(data, str) or len(data) < 10:
                await self.socket.close(1002 if not isinstance(data, str) else 1003)
                return
            length, frame_type, flags, stream_id = HEADER.unpack(data[:10])
            payload = data[10:]
            assert length == len(payload), "one frame per message"
            await self.handle(frame_type, flags, stream_id, payload)
        self.closed = True
        for call in self.calls.values():
            if call.get("task"):
                call["task"].cancel()

    async def handle(self, frame_type, flags, stream_id, payload):
        if frame_type == PING and not flags & 1:
            if self.scenario != "silent-pings":
                await self.send(frame(PING, 0, payload, 1))
        elif frame_type == CALL_START:
            start = pb["frames"].CallStart.FromString(payload)
            metadata = {entry.key: entry.value.decode() for entry in start.metadata}
            if self.scenario == "two-streams" and len(self.calls) >= 2:
                world.log["refused_streams"] = world.log.get("refused_streams", 0) + 1
                return await self.end(stream_id, 14, 107, "too many streams")
            self.calls[stream_id] = {"method": start.method, "messages": [], "metadata": metadata, "timeout_ms": start.timeout_ms, "window": 65536}
        elif frame_type == MESSAGE and stream_id in self.calls:
            self.calls[stream_id]["messages"].append(payload)
        elif frame_type == HALF_CLOSE and stream_id in self.calls:
            call = self.calls[stream_id]
            call["task"] = asyncio.create_task(self.serve_call(stream_id, call))
        elif frame_type == WINDOW_UPDATE:
            increment = struct.unpack(">I", payload)[0]
            async with self.credit:
                if stream_id == 0:
                    self.connection_window += increment
                elif stream_id in self.calls:
                    self.calls[stream_id]["window"] += increment
                world.log["window_updates"] = world.log.get("window_updates", 0) + 1
                self.credit.notify_all()
        elif frame_type == CANCEL:
            status = pb["errors"].Status.FromString(payload)
            call = self.calls.pop(stream_id, None)
            world.log["cancels"].append({"method": call["method"] if call else None, "code": status.code, "reason": status.reason})
            if call and call.get("task"):
                call["task"].cancel()

    async def serve_call(self, stream_id, call):
        method = call["method"]
        service, _, name = method.rpartition("/")
        request_bytes = call["messages"][0] if call["messages"] else b""
        try:
            if service == "/readergateway.v1.Sdk":
                await self.sdk(stream_id, name, request_bytes, call)
            elif service == "/readergateway.v1.FleetAdmin" and name == "ListReaderOwnership":
                if call["metadata"].get("authorization") != "Bearer sk_test":
                    await self.end(stream_id, 16, 3, "the secret key is not valid")
                else:
                    ownership = pb["admin"].ReaderOwnership(reader_id="tmr_1", generation=7)
                    await self.reply(stream_id, pb["admin"].ListReaderOwnershipResponse(ownerships=[ownership]))
            elif method == "/readergateway.testing.Control/Slow":
                await asyncio.Event().wait()
            elif method == "/readergateway.testing.Control/Stream":
                # PROTOCOL.md section 6 as a sender: a MESSAGE only while both windows are above zero.
                request = json.loads(request_bytes or b"{}")
                for index in range(request["count"]):
                    async with self.credit:
                        await self.credit.wait_for(lambda: self.connection_window > 0 and call["window"] > 0)
                        message = bytes([index % 256]) * request["size"]
                        self.connection_window -= len(message)
                        call["window"] -= len(message)
                    await self.send(frame(MESSAGE, stream_id, message))
                await self.end(stream_id)
            elif method == "/readergateway.testing.Control/Hold":
                await asyncio.sleep(0.05)  # long enough for the other calls to queue behind it
                await self.send(frame(MESSAGE, stream_id, b"{}"))
                await self.end(stream_id)
            elif method == "/readergateway.testing.Control/Log":
                await self.send(frame(MESSAGE, stream_id, json.dumps(world.log).encode()))
                await self.end(stream_id)
            else:
                await self.end(stream_id, 12, 110, f"unknown method {method}")
        except asyncio.CancelledError:
            pass
        finally:
            self.calls.pop(stream_id, None)

    async def sdk(self, stream_id, name, request_bytes, call):
        sdk, common = pb["sdk"], pb["common"]
        request_type = getattr(sdk, f"{name}Request")
        request = request_type.FromString(request_bytes)
        token = getattr(request, "session_token", "")
        session = world.sessions.get(token)
        if name == "OpenSession":
            if request.connection_token == "pst_bad":
                return await self.end(stream_id, 16, 1, "the connection token is not valid: fetch a new one")
            if request.resume_token and request.resume_token in world.sessions:
                world.log["resumes"] += 1
                kept = world.sessions[request.resume_token]
                response = sdk.OpenSessionResponse(session_id="ses_resumed", session_token=request.resume_token, lease_ms=30000, resumed=True)
                if kept["reader"] is not None:
                    response.connected_reader.CopyFrom(kept["reader"])
                return await self.reply(stream_id, response)
            token = f"st_{world.next_session}"
            world.next_session += 1
            world.sessions[token] = {"reader": None, "events": [], "collect": None}
            return await self.reply(stream_id, sdk.OpenSessionResponse(session_id=f"ses_{token}", session_token=token, lease_ms=30000))
        if session is None:
            return await self.end(stream_id, 16, 4, "the session expired: open a new one")
        if name == "SubscribeEvents":
            session["events"].append((self, stream_id))
            await asyncio.Event().wait()
        elif name == "DiscoverReaders":
            readers = [
                common.Reader(id="tmr_1", label="Front", location_id=request.location_id, network_status=1, serial_number="WSC-1",
                              device_type=1, software_version="2.31.1", ip_address="10.0.0.7", battery_level=0.5,
                              last_seen_unix_ms=1764300000000, activity=1),
                common.Reader(id="tmr_busy", label="Back", location_id=request.location_id, network_status=1, activity=2),
            ]
            # Location `tml_old` answers as a replica of a release before the filter: it ignores it.
            if request.HasField("filter") and request.location_id != "tml_old":
                readers = [reader for reader in readers if named(request.filter, reader)]
            await self.reply(stream_id, sdk.DiscoverReadersResponse(discovery_id="disc_1", readers=readers))
        elif name == "EasyConnect":
            candidates = [common.Reader(id="tmr_1", label="Front", network_status=1, serial_number="WSC-1"),
                          common.Reader(id="tmr_busy", label="Back", network_status=1, serial_number="WSC-BUSY")]
            found = [reader for reader in candidates if named(request.filter, reader)]
            if not found:
                return await self.end(stream_id, 5, 13, "no reader with this filter at the location")
            reader = found[0]
            if reader.id == "tmr_busy" and request.fail_if_in_use:
                return await self.end(stream_id, 10, 10, "the reader is busy with Lane 9's transaction")
            session["reader"] = reader
            connection = sdk.ConnectReaderResponse(generation=4, replaced_other_session=reader.id == "tmr_busy")
            connection.reader.CopyFrom(reader)
            response = sdk.EasyConnectResponse(discovery_id="disc_2")
            response.connection.CopyFrom(connection)
            await self.reply(stream_id, response)
        elif name == "ConnectReader":
            if request.reader_id == "tmr_busy" and request.fail_if_in_use:
                return await self.end(stream_id, 10, 10, "the reader is busy with Lane 9's transaction")
            if request.discovery_id != "disc_1":
                return await self.end(stream_id, 9, 14, "discover again")
            reader = common.Reader(id=request.reader_id, label="Front", network_status=1)
            session["reader"] = reader
            response = sdk.ConnectReaderResponse(generation=3, replaced_other_session=request.reader_id == "tmr_busy")
            response.reader.CopyFrom(reader)
            await self.reply(stream_id, response)
        elif name == "CollectPaymentMethod":
            if request.params.payment_intent_id == "pi_ok":
                method = common.PaymentMethod(id="pm_1", brand="visa", last4="4242")
                response = sdk.CollectPaymentMethodResponse(payment_intent_id="pi_ok")
                response.payment_method.CopyFrom(method)
                return await self.reply(stream_id, response)
            if request.params.payment_intent_id == "pi_declined":
                return await self.end(stream_id, 9, 81, "the card was declined (insufficient_funds); ask for another card", "insufficient_funds")
            session["collect"] = asyncio.get_running_loop().create_future()
            await session["collect"]
            await self.end(stream_id, 1, 30, "the collect was canceled by the point of sale")
        elif name == "ConfirmPaymentIntent":
            huge = request.params.payment_intent_id == "pi_huge"
            result = common.PaymentIntentResult(payment_intent_id=request.params.payment_intent_id, status="succeeded",
                                                amount_received=2**60 if huge else 1999)
            await self.reply(stream_id, sdk.ConfirmPaymentIntentResponse(result=result))
        elif name == "CancelCollectPaymentMethod":
            if session["collect"] is not None and not session["collect"].done():
                session["collect"].set_result(None)
            await self.reply(stream_id, sdk.CancelCollectPaymentMethodResponse())
        elif name == "SetReaderDisplay":
            currency = request.cart.currency
            if currency == "take":
                event = sdk.SessionEvent(sequence=1)
                event.disconnected.CopyFrom(sdk.ReaderDisconnected(
                    reader_id=session["reader"].id if session["reader"] else "", reason=2,
                    taken_by_lane_label="Lane 2", taken_by_pos_device_id="pos-2"))
                session["reader"] = None
                for connection, events_id in session["events"]:
                    await connection.send(frame(MESSAGE, events_id, event.SerializeToString()))
            elif currency == "blip" and not session.get("blipped"):
                session["blipped"] = True
                session["events"].clear()
                self.closed = True
                self.socket.transport.abort()
                return
            elif currency == "goaway":
                goaway = pb["frames"].GoAway(last_stream_id=stream_id, status=pb["errors"].Status(code=14, reason=113, message="draining"))
                await self.send(frame(GOAWAY, 0, goaway.SerializeToString()))
            await self.reply(stream_id, sdk.SetReaderDisplayResponse())
        elif name in ("ClearReaderDisplay", "Heartbeat", "CloseSession", "DisconnectReader"):
            if name == "DisconnectReader":
                session["reader"] = None
            await self.reply(stream_id, getattr(sdk, f"{name}Response")())
        else:
            await self.end(stream_id, 12, 110, f"the fake gateway does not implement {name}")


def named(discovery_filter, reader):
    """Whether the DiscoveryFilter names the reader (by id or serial, whichever is set)."""
    if discovery_filter.reader_id:
        return reader.id == discovery_filter.reader_id
    return bool(discovery_filter.serial_number) and reader.serial_number == discovery_filter.serial_number


def refuse_other_paths(connection, request):
    if urlparse(request.path).path != PATH:
        return connection.respond(HTTPStatus.NOT_FOUND, f"no WebSocket endpoint at {request.path}\n")
    return None


async def handler(socket):
    url = urlparse(socket.request.path)
    scenario = parse_qs(url.query).get("scenario", [""])[0]
    try:
        await Connection(socket, scenario).run()
    except ConnectionClosed:
        pass  # the client went away (or a test cut the connection): nothing to answer


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--protos-out", required=True)
    args = parser.parse_args()
    load_protos(args.protos_out)
    async with serve(handler, "127.0.0.1", 0, subprotocols=["readergateway.v1"], process_request=refuse_other_paths, max_size=1 << 20) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"port {port}", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
