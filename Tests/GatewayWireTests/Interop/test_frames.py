"""A client written from proto/PROTOCOL.md alone (struct + the official protobuf
runtime) against the Swift server-side FrameConnection, in memory."""

import json
import struct
import subprocess

HEADER = struct.Struct(">IBBI")
PREFACE = b"RGW1\r\n\r\n"
SETTINGS, CALL_START, MESSAGE, HALF_CLOSE, END_OF_CALL, CANCEL, PING, GOAWAY, WINDOW_UPDATE = range(9)


def frame(frame_type, stream_id, payload=b"", flags=0):
    return HEADER.pack(len(payload), frame_type, flags, stream_id) + payload


def parse_frames(data):
    frames, position = [], 0
    while position < len(data):
        length, frame_type, flags, stream_id = HEADER.unpack_from(data, position)
        frames.append((frame_type, flags, stream_id, data[position + 10:position + 10 + length]))
        position += 10 + length
    assert position == len(data), "trailing bytes after the last frame"
    return frames


def serve(swift_bin, client_bytes):
    result = subprocess.run([swift_bin, "serve"], input=client_bytes.hex() + "\n", capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    return answer["events"], parse_frames(bytes.fromhex(answer["hex"]))


def pb_modules(pb):
    return (pb.modules["readergateway.v1.frames_pb2"], pb.modules["readergateway.v1.sdk_pb2"],
            pb.modules["readergateway.v1.errors_pb2"])


def test_a_unary_call_from_a_client_written_from_the_protocol_page(swift_bin, pb):
    frames_pb2, sdk_pb2, errors_pb2 = pb_modules(pb)
    start = frames_pb2.CallStart(method="/readergateway.v1.Sdk/ConnectReader", timeout_ms=5000,
                                 metadata=[frames_pb2.MetadataEntry(key="x-lane", value=b"3")])
    request = sdk_pb2.ConnectReaderRequest(session_token="st_1", reader_id="tmr_1", fail_if_in_use=True)
    client = (PREFACE + frame(SETTINGS, 0, frames_pb2.Settings(protocol_version=1).SerializeToString())
              + frame(CALL_START, 1, start.SerializeToString())
              + frame(MESSAGE, 1, request.SerializeToString())
              + frame(PING, 0, struct.pack(">Q", 77))
              + frame(HALF_CLOSE, 1))
    events, frames = serve(swift_bin, client)
    assert events == [
        "callStarted 1 /readergateway.v1.Sdk/ConnectReader 5000",
        f"message 1 {request.SerializeToString().hex()}",
        "halfClosed 1",
    ]
    types = [f[0] for f in frames]
    assert types[0] == SETTINGS
    settings = frames_pb2.Settings.FromString(frames[0][3])
    assert settings.protocol_version == 1 and settings.max_frame_size >= 16384
    assert (PING, 1, 0, struct.pack(">Q", 77)) in frames  # the pong
    echoed = [f for f in frames if f[0] == MESSAGE]
    assert [sdk_pb2.ConnectReaderRequest.FromString(f[3]) for f in echoed] == [request]
    end = [f for f in frames if f[0] == END_OF_CALL]
    assert len(end) == 1 and end[0][2] == 1
    call_end = frames_pb2.CallEnd.FromString(end[0][3])
    assert call_end.status.code == errors_pb2.STATUS_CODE_OK
    assert [(t.key, t.value) for t in call_end.trailers] == [("x-echo", b"done")]


def test_a_protocol_violation_gets_goaway_with_status_and_reason(swift_bin, pb):
    frames_pb2, _, errors_pb2 = pb_modules(pb)
    client = (PREFACE + frame(SETTINGS, 0)
              + frame(CALL_START, 3, frames_pb2.CallStart(method="/a/b").SerializeToString())
              + frame(CALL_START, 1, frames_pb2.CallStart(method="/a/b").SerializeToString()))
    events, frames = serve(swift_bin, client)
    goaway = [f for f in frames if f[0] == GOAWAY]
    assert len(goaway) == 1
    message = frames_pb2.GoAway.FromString(goaway[0][3])
    assert message.last_stream_id == 3
    assert message.status.code == errors_pb2.STATUS_CODE_INTERNAL
    assert message.status.reason == errors_pb2.ERROR_REASON_STREAM_ID_INVALID
    assert events[-1] == "closed ERROR_REASON_STREAM_ID_INVALID"


def test_a_wrong_preface_is_refused(swift_bin, pb):
    frames_pb2, _, errors_pb2 = pb_modules(pb)
    events, frames = serve(swift_bin, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    [(frame_type, _, _, payload)] = [f for f in frames if f[0] == GOAWAY]
    assert frames_pb2.GoAway.FromString(payload).status.reason == errors_pb2.ERROR_REASON_UNSUPPORTED_PROTOCOL
