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


def run_node(node, tmp_path, cases):
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    driver = os.path.join(HERE, "js_codec_driver.mjs")
    output = subprocess.run([node, driver, str(path)], check=True, capture_output=True, text=True).stdout
    return json.loads(output)


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
    for (name, message), result in zip(cases, results):
        if result["error"] is not None:
            failures.append(f"{name}: JavaScript could not decode Python's bytes: {result['error']}")
            continue
        if result["decoded"] != as_json(message):
            failures.append(f"{name}: JavaScript decoded {result['decoded']}, Python wrote {as_json(message)}")
        again = type(message).FromString(bytes.fromhex(result["encoded"]))
        if again != message:
            failures.append(f"{name}: Python decoded JavaScript's bytes to {again}, expected {message}")
    assert not failures, "\n".join(failures[:20])


def test_unpacked_repeated_and_last_value_wins(modules, node, tmp_path):
    admin = modules[4]
    common = modules[1]
    # ListReaderOwnershipResponse-like: a repeated message; Reader: singular string twice.
    reader = common.Reader(id="a").SerializeToString() + common.Reader(id="b").SerializeToString()
    results = run_node(node, tmp_path, [{"type": "readergateway.v1.Reader", "json": None, "hex": reader.hex()}])["results"]
    assert results[0]["decoded"]["id"] == "b"


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
