"""The generated JavaScript codecs against Python's official protobuf runtime, both ways.

Every message type of the SDK and FleetAdmin surfaces (and the frames and types they use)
is filled in by descriptor (every field set, nested messages two levels deep, repeated
fields with two values, each oneof member in turn), beside hand-written edge cases. For
each: JavaScript decodes Python's bytes to the same message, and Python decodes
JavaScript's bytes to the same message. Bytes Python refuses, JavaScript refuses too.
"""

import base64
import importlib
import json
import os
import struct
import subprocess
import sys

import pytest
from google.protobuf import descriptor, json_format, message_factory

HERE = os.path.dirname(__file__)
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PROTOS = [
    "readergateway/v1/errors.proto",
    "readergateway/v1/common.proto",
    "readergateway/v1/frames.proto",
    "readergateway/v1/sdk.proto",
    "readergateway/v1/admin.proto",
]
FD = descriptor.FieldDescriptor


@pytest.fixture(scope="session")
def modules(tmp_path_factory):
    out = tmp_path_factory.mktemp("python_out")
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{os.path.join(REPO, 'proto')}", f"--python_out={out}"] + PROTOS,
        check=True,
    )
    sys.path.insert(0, str(out))
    return [importlib.import_module(p[:-len(".proto")].replace("/", ".") + "_pb2") for p in PROTOS]


def message_types(modules):
    def walk(message_descriptor):
        yield message_descriptor
        for nested in message_descriptor.nested_types:
            yield from walk(nested)

    for module in modules:
        for message_descriptor in module.DESCRIPTOR.message_types_by_name.values():
            yield from walk(message_descriptor)


def is_repeated(field):
    return field.is_repeated if hasattr(field, "is_repeated") else field.label == FD.LABEL_REPEATED


def sample_value(field, seed):
    kind = field.type
    if kind in (FD.TYPE_INT32, FD.TYPE_SFIXED32, FD.TYPE_SINT32):
        return [-7, 2147483647, -2147483648][seed % 3]
    if kind in (FD.TYPE_INT64, FD.TYPE_SFIXED64, FD.TYPE_SINT64):
        return [-9007199254740993, 9223372036854775807, -1][seed % 3]
    if kind in (FD.TYPE_UINT32, FD.TYPE_FIXED32):
        return [4294967295, 300, 1][seed % 3]
    if kind in (FD.TYPE_UINT64, FD.TYPE_FIXED64):
        return [18446744073709551615, 1 << 53, 129][seed % 3]
    if kind in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE):
        return [0.5, -1.25, 3.0][seed % 3]
    if kind == FD.TYPE_BOOL:
        return True
    if kind == FD.TYPE_STRING:
        return ["tmr_1 Lane ✓", "é𝄞", "x"][seed % 3]
    if kind == FD.TYPE_BYTES:
        return [b"\x00\xff\x80", b"bytes", b"\x01"][seed % 3]
    if kind == FD.TYPE_ENUM:
        values = [v.number for v in field.enum_type.values if v.number != 0] or [0]
        return values[seed % len(values)]
    raise AssertionError(kind)


def fill(message, depth, seed, oneof_choice=0):
    """Sets every field (one member per oneof, chosen by oneof_choice) to a sample value."""
    for field in message.DESCRIPTOR.fields:
        oneof = field.containing_oneof
        if oneof is not None and not oneof.name.startswith("_"):  # a real oneof, not proto3 optional's
            members = list(oneof.fields)
            if members[oneof_choice % len(members)] is not field:
                continue
        if field.type == FD.TYPE_MESSAGE:
            if depth == 0:
                continue
            if is_repeated(field):
                for index in range(2):
                    fill(getattr(message, field.name).add(), depth - 1, seed + index + 1)
            else:
                fill(getattr(message, field.name), depth - 1, seed + 1)
                getattr(message, field.name).SetInParent()
        elif is_repeated(field):
            getattr(message, field.name).extend([sample_value(field, seed), sample_value(field, seed + 1)])
        else:
            setattr(message, field.name, sample_value(field, seed))


def corpus(modules):
    cases = []
    for message_descriptor in message_types(modules):
        cls = message_factory.GetMessageClass(message_descriptor)
        cases.append(("empty", cls()))
        real_oneofs = [o for o in message_descriptor.oneofs if not o.name.startswith("_")]
        choices = max([len(o.fields) for o in real_oneofs] or [1])
        for choice in range(choices):
            for seed in range(2):
                message = cls()
                fill(message, 2, seed, choice)
                cases.append((f"filled {choice}/{seed}", message))
    sdk = modules[3]
    admin = modules[4]
    common = modules[1]
    # proto3 optional set to zero is present and must survive.
    reader = common.Reader(battery_level=0.0)
    cases.append(("optional zero", reader))
    cases.append(("optional zero", admin.ForceReleaseReaderRequest(expected_generation=0)))
    # PROTOCOL.md section 11's ConnectReader request.
    cases.append(("protocol example", sdk.ConnectReaderRequest(session_token="st_1", reader_id="tmr_1", discovery_id="disc_1", fail_if_in_use=True)))
    return [(f"{message.DESCRIPTOR.full_name} {name}", message) for name, message in cases]


def run_node(node, tmp_path, cases, extra_modules=()):
    """The driver's answer for `cases`: its type names and one result per case, checked to be one per case."""
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    driver = os.path.join(HERE, "js_codec_driver.mjs")
    output = subprocess.run([node, driver, str(path), *extra_modules], check=True, capture_output=True, text=True).stdout
    answer = json.loads(output)
    assert len(answer["results"]) == len(cases), f"{len(cases)} cases sent to the driver, {len(answer['results'])} results back"
    return answer


def as_json(message):
    return json_format.MessageToDict(message, use_integers_for_enums=True)


def test_every_type_is_generated(modules, node, tmp_path):
    expected = sorted(d.full_name for d in message_types(modules))
    result = run_node(node, tmp_path, [])
    assert [t for t in result["types"]] == expected


def test_both_directions(modules, node, tmp_path):
    cases = corpus(modules)
    assert len(cases) > 150
    payload = [{"type": m.DESCRIPTOR.full_name, "json": as_json(m), "hex": m.SerializeToString().hex()} for _, m in cases]
    results = run_node(node, tmp_path, payload)["results"]
    failures = []
    for (name, message), result in zip(cases, results, strict=True):
        if result["error"] is not None:
            failures.append(f"{name}: JavaScript could not decode Python's bytes: {result['error']}")
            continue
        if result["decoded"] != as_json(message):
            failures.append(f"{name}: JavaScript decoded {result['decoded']}, Python wrote {as_json(message)}")
        again = type(message).FromString(bytes.fromhex(result["encoded"]))
        if again != message:
            failures.append(f"{name}: Python decoded JavaScript's bytes to {again}, expected {message}")
    assert not failures, "\n".join(failures[:20])


def varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def record(number, wire_type, payload):
    """One field record: the key, then the payload (a length prefix added for wire type 2)."""
    if wire_type == 2:
        payload = varint(len(payload)) + payload
    return varint(number << 3 | wire_type) + payload


def test_unpacked_repeated_and_last_value_wins(modules, testing_pb, testing_js, node, tmp_path):
    # conformance.proto's AllTypes: repeated_int32 (21) is packed by default, unpacked_int32 (38)
    # is [packed = false]; a reader accepts both forms of each, and the values add up in order.
    raw = b"".join([
        record(21, 0, varint(5)),                      # repeated_int32 unpacked, one record per value,
        record(14, 2, b"first"),                       # split by other fields,
        record(21, 0, varint(-3)),                     # a negative one in ten bytes,
        record(21, 2, varint(9) + varint(300)),        # then packed: appended after them
        record(38, 2, varint(1) + varint(2)),          # unpacked_int32 packed
        record(38, 0, varint(3)),                      # and unpacked
        record(27, 5, struct.pack("<I", 7)),           # repeated_fixed32 unpacked (wire type 5)
        record(27, 5, struct.pack("<I", 2**32 - 1)),
        record(32, 1, struct.pack("<d", -2.5)),        # repeated_double unpacked (wire type 1)
        record(14, 2, b"last"),                        # string_value again: the last value wins
        record(1, 0, varint(1)), record(1, 0, varint(2)),  # int32_value twice
    ])
    expected = testing_pb.AllTypes.FromString(raw)
    # What the bytes mean, as Python's runtime reads them.
    assert list(expected.repeated_int32) == [5, -3, 9, 300]
    assert list(expected.unpacked_int32) == [1, 2, 3]
    assert list(expected.repeated_fixed32) == [7, 2**32 - 1] and list(expected.repeated_double) == [-2.5]
    assert expected.string_value == "last" and expected.int32_value == 2
    # A product type: two Readers' bytes concatenated read as one, the second id winning.
    reader = modules[1].Reader
    concatenated = reader(id="a", label="kept").SerializeToString() + reader(id="b").SerializeToString()
    cases = [
        {"type": "readergateway.testing.v1.AllTypes", "json": as_json(expected), "hex": raw.hex()},
        {"type": "readergateway.v1.Reader", "json": None, "hex": concatenated.hex()},
    ]
    all_types, readers = run_node(node, tmp_path, cases, [testing_js])["results"]
    assert all_types["error"] is None, all_types["error"]
    assert all_types["decoded"] == as_json(expected)
    # JavaScript writes the repeated numbers packed; Python reads them back to the same message.
    assert testing_pb.AllTypes.FromString(bytes.fromhex(all_types["encoded"])) == expected
    assert readers["error"] is None, readers["error"]
    assert readers["decoded"] == as_json(reader.FromString(concatenated))
    assert readers["decoded"]["id"] == "b" and readers["decoded"]["label"] == "kept"


# (what, type, bytes, whether Python refuses them too). A declared field with the wrong
# wire type is skipped as unknown by Python's runtime; PROTOCOL.md section 10 (and the
# Swift codec) refuse it, and so does the JavaScript one.
MALFORMED = [
    ("truncated varint", "readergateway.v1.Settings", "08", True),
    ("varint over 10 bytes", "readergateway.v1.Settings", "08ffffffffffffffffffff01", True),
    ("length past the end", "readergateway.v1.CallStart", "0a05616263", True),
    ("string not UTF-8", "readergateway.v1.CallStart", "0a02c328", True),
    ("wrong wire type for a declared field", "readergateway.v1.CallStart", "0d01000000", False),
    ("field number 0", "readergateway.v1.Settings", "0001", True),
    ("wire type 7", "readergateway.v1.Settings", "0f", True),
    ("truncated fixed32", "readergateway.v1.Reader", "6501", True),
]


@pytest.mark.parametrize("name,type_name,hex_bytes,python_refuses", MALFORMED)
def test_malformed_is_refused(modules, node, tmp_path, name, type_name, hex_bytes, python_refuses):
    from google.protobuf import symbol_database

    cls = message_factory.GetMessageClass(symbol_database.Default().pool.FindMessageTypeByName(type_name))
    if python_refuses:
        with pytest.raises(Exception):
            cls.FromString(bytes.fromhex(hex_bytes))
    result = run_node(node, tmp_path, [{"type": type_name, "json": None, "hex": hex_bytes}])["results"][0]
    assert result["error"] is not None, f"{name}: JavaScript accepted {result['decoded']}"
