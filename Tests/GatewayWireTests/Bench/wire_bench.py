#!/usr/bin/env python3
"""Wire benchmark: the Swift codec (wire-bench) beside Python's protobuf runtime.

Rates are per second of thread CPU time on both sides. Both sides work on the same ~200-byte ReaderCommand (Swift builds it, Python
parses Swift's bytes to make its copy) and on the same stream of MESSAGE frames
(10-byte header + the command). Python's frame decoder is the obvious one:
struct.unpack_from on the header and a memoryview slice for the payload.

    make wire-bench          (or: python wire_bench.py --swift-bin .build/release/wire-bench)
"""

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def compile_protos(out):
    protos = ["readergateway/v1/errors.proto", "readergateway/v1/common.proto", "readergateway/v1/reader_link.proto"]
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{REPO}/proto", f"--python_out={out}"] + protos, check=True)
    sys.path.insert(0, out)


def measure(name, seconds, batch, bytes_per_operation, body):
    for _ in range(3):
        body()
    operations = 0
    start = time.thread_time()
    while True:
        body()
        operations += batch
        elapsed = time.thread_time() - start
        if elapsed >= seconds:
            break
    return {"name": name, "operations": operations, "bytes": operations * bytes_per_operation, "seconds": elapsed}


def python_measurements(message_bytes, seconds):
    from readergateway.v1 import reader_link_pb2

    command = reader_link_pb2.ReaderCommand.FromString(message_bytes)
    assert command.SerializeToString() == message_bytes, "Python re-encodes the command differently"
    batch = 1000
    results = []

    def encode():
        for _ in range(batch):
            command.SerializeToString()

    def decode():
        parse = reader_link_pb2.ReaderCommand.FromString
        for _ in range(batch):
            parse(message_bytes)

    results.append(measure("encode", seconds, batch, len(message_bytes), encode))
    results.append(measure("decode", seconds, batch, len(message_bytes), decode))

    frames_per_stream = 4096
    header = struct.Struct(">IBBI")
    stream = bytearray()
    for index in range(frames_per_stream):
        stream += header.pack(len(message_bytes), 2, 0, (index % 64) * 2 + 1) + message_bytes
    stream = bytes(stream)
    frame_size = len(stream) // frames_per_stream
    chunk = 65536

    def frame_decode(parse_messages):
        def body():
            buffer = bytearray()
            parse = reader_link_pb2.ReaderCommand.FromString
            for offset in range(0, len(stream), chunk):
                buffer += stream[offset:offset + chunk]
                view = memoryview(buffer)
                position = 0
                while len(buffer) - position >= 10:
                    length, frame_type, flags, stream_id = header.unpack_from(buffer, position)
                    if len(buffer) - position - 10 < length:
                        break
                    payload = bytes(view[position + 10:position + 10 + length])
                    if parse_messages:
                        parse(payload)
                    position += 10 + length
                view.release()
                del buffer[:position]
        return body

    def frame_encode():
        out = bytearray()
        for index in range(frames_per_stream):
            payload = command.SerializeToString()
            out += header.pack(len(payload), 2, 0, (index % 64) * 2 + 1)
            out += payload

    results.append(measure("frame-decode", seconds, frames_per_stream, frame_size, frame_decode(False)))
    results.append(measure("frame-and-message-decode", seconds, frames_per_stream, frame_size, frame_decode(True)))
    results.append(measure("frame-encode", seconds, frames_per_stream, frame_size, frame_encode))
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--swift-bin", required=True)
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("WIRE_BENCH_SECONDS", "1.0")))
    args = parser.parse_args()

    from google.protobuf.internal import api_implementation
    import google.protobuf

    message_hex = subprocess.run([args.swift_bin, "message-hex"], capture_output=True, text=True, check=True).stdout.strip()
    message_bytes = bytes.fromhex(message_hex)
    with tempfile.TemporaryDirectory() as out:
        compile_protos(out)
        python = {r["name"]: r for r in python_measurements(message_bytes, args.seconds)}
    swift_out = subprocess.run([args.swift_bin, "run", str(args.seconds)], capture_output=True, text=True, check=True).stdout
    swift = {r["name"]: r for r in map(json.loads, swift_out.splitlines())}

    print(f"wire benchmark: ReaderCommand of {len(message_bytes)} bytes; frames of {len(message_bytes) + 10} bytes")
    print(f"peer: Python {sys.version.split()[0]} protobuf {google.protobuf.__version__} ({api_implementation.Type()} backend)")
    print(f"each figure runs {args.seconds:g} s of thread CPU time (not wall time, so other load on the machine")
    print("does not skew it); ratio = Swift / Python (higher is better for Swift)")
    print()
    print(f"{'measurement':<26} {'Swift msg/s':>13} {'Swift MB/s':>11} {'Python msg/s':>13} {'Python MB/s':>12} {'ratio':>7}")
    for name in ["encode", "decode", "frame-encode", "frame-decode", "frame-and-message-decode"]:
        s, p = swift[name], python[name]
        s_rate, p_rate = s["operations"] / s["seconds"], p["operations"] / p["seconds"]
        s_mb, p_mb = s["bytes"] / s["seconds"] / 1e6, p["bytes"] / p["seconds"] / 1e6
        print(f"{name:<26} {s_rate:>13,.0f} {s_mb:>11.1f} {p_rate:>13,.0f} {p_mb:>12.1f} {s_rate / p_rate:>6.2f}x")


if __name__ == "__main__":
    main()
