"""Interop: the Swift codec against Python's official protobuf runtime, both directions.

Run by `make wire-interop` (part of `make test`):
    python -m pytest Tests/GatewayWireTests/Interop --swift-bin .build/debug/wire-interop
"""

import json
import random
import subprocess

import pytest
from google.protobuf.descriptor import FieldDescriptor as F

from canonical import canonical, is_repeated, real_oneof

ALL_TYPES = "readergateway.testing.v1.AllTypes"
SUBSET = "readergateway.testing.v1.Subset"
INT_RANGES = {
    F.TYPE_INT32: (-(2**31), 2**31 - 1), F.TYPE_SINT32: (-(2**31), 2**31 - 1), F.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    F.TYPE_INT64: (-(2**63), 2**63 - 1), F.TYPE_SINT64: (-(2**63), 2**63 - 1), F.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    F.TYPE_UINT32: (0, 2**32 - 1), F.TYPE_FIXED32: (0, 2**32 - 1),
    F.TYPE_UINT64: (0, 2**64 - 1), F.TYPE_FIXED64: (0, 2**64 - 1),
}
STRINGS = ["", "a", "Lane 3", "caf\u00e9", "\U0001F4B3 card", "tmr_" + "x" * 300, "\x00nul"]


def swift(swift_bin, mode, lines=()):
    result = subprocess.run(
        [swift_bin, mode], input="".join(line + "\n" for line in lines), capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def random_value(field, rng, pb, depth):
    t = field.type
    if t in INT_RANGES:
        low, high = INT_RANGES[t]
        return rng.choice([0, 1, -1 if low < 0 else 2, low, high, rng.randint(low, high), 150, 300])
    if t == F.TYPE_ENUM:
        return rng.choice([v.number for v in field.enum_type.values] + [42])
    if t == F.TYPE_FLOAT:
        return rng.choice([0.0, 1.5, -2.5, 3.25e10, float("inf")])
    if t == F.TYPE_DOUBLE:
        return rng.choice([0.0, -0.0, 0.1, -1e300, 5e-324, float("-inf")])
    if t == F.TYPE_BOOL:
        return rng.choice([True, False])
    if t == F.TYPE_STRING:
        return rng.choice(STRINGS)
    if t == F.TYPE_BYTES:
        return bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 5, 200])))
    raise AssertionError(t)


def fill(message, rng, pb, depth=0):
    """Sets most fields of `message` to varied values, recursively (bounded depth)."""
    chosen_oneofs = {}
    for field in message.DESCRIPTOR.fields:
        oneof = real_oneof(field)
        if oneof is not None:
            if oneof.name not in chosen_oneofs:
                chosen_oneofs[oneof.name] = rng.choice(list(oneof.fields) + [None])
            if chosen_oneofs[oneof.name] is not field:
                continue
        elif rng.random() < 0.15:
            continue
        if field.type == F.TYPE_MESSAGE:
            if depth >= 3:
                continue
            if is_repeated(field):
                for _ in range(rng.choice([0, 1, 3])):
                    fill(getattr(message, field.name).add(), rng, pb, depth + 1)
            else:
                getattr(message, field.name).SetInParent()
                fill(getattr(message, field.name), rng, pb, depth + 1)
        elif is_repeated(field):
            getattr(message, field.name).extend(random_value(field, rng, pb, depth) for _ in range(rng.choice([0, 1, 4])))
        else:
            setattr(message, field.name, random_value(field, rng, pb, depth))
    return message


def python_corpus(pb):
    cls = pb.cls(ALL_TYPES)
    corpus = [("empty", cls())]
    m = cls(int32_value=-1, int64_value=-(2**63), uint64_value=2**64 - 1, sint32_value=-(2**31), sint64_value=2**63 - 1,
            fixed64_value=2**64 - 1, sfixed32_value=-(2**31), float_value=-0.0, double_value=float("inf"),
            string_value="\u00e9\u4e2d\U0001F600", bytes_value=bytes(range(256)), color=-1)
    corpus.append(("extremes and negatives", m))
    m = cls(repeated_int32=[-1, 0, 2**31 - 1], repeated_uint64=[0, 2**63, 2**64 - 1], repeated_sint32=[-1, 1],
            repeated_bool=[True, False], repeated_string=["", "x"], repeated_bytes=[b"", b"\x00"],
            repeated_color=[0, 1, 2, -1, 99], unpacked_int32=[1, -2, 300], repeated_float=[1.0, -1.0])
    corpus.append(("repeated", m))
    m = cls()
    m.child.SetInParent()
    m.reader.SetInParent()
    m.repeated_child.add()
    corpus.append(("empty nested messages are present", m))
    deep = cls(string_value="leaf")
    for depth in range(30):
        deep = cls(int32_value=depth, child=deep)
    corpus.append(("30 levels of nesting", deep))
    corpus.append(("optional zero", cls(optional_int32=0, optional_string="", optional_color=0)))
    corpus.append(("oneof string", cls(choice_string="chosen")))
    corpus.append(("oneof empty child", cls(choice_child=cls())))
    rng = random.Random(20261121)
    for index in range(60):
        corpus.append((f"random AllTypes {index}", fill(cls(), rng, pb)))
    # Every product message, filled twice with different values.
    for module_name, module in sorted(pb.modules.items()):
        if "testing" in module_name:
            continue
        for descriptor in module.DESCRIPTOR.message_types_by_name.values():
            for descriptor_or_nested in [descriptor] + list(descriptor.nested_types):
                message_cls = pb.cls(descriptor_or_nested.full_name)
                corpus.append((f"{descriptor_or_nested.full_name} default", message_cls()))
                for round_ in range(2):
                    corpus.append((f"{descriptor_or_nested.full_name} filled {round_}", fill(message_cls(), rng, pb)))
    return corpus


def test_runtime_is_the_official_one(pb):
    # upb is the C-accelerated runtime that ships in the `protobuf` wheel; the pure-Python
    # fallback (or PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python) is not what the tests compare against.
    assert pb.implementation == "upb", f"the protobuf runtime is {pb.implementation!r}, not the wheel's upb"


def test_swift_written_bytes_decode_in_python_to_the_same_values(swift_bin, pb):
    corpus = swift(swift_bin, "corpus")
    assert len(corpus) >= 10
    for entry in corpus:
        message = pb.cls(entry["type"]).FromString(bytes.fromhex(entry["hex"]))
        assert canonical(message) == entry["values"], entry["name"]
        if entry["type"] == SUBSET:
            # Unknown fields Swift wrote survive Python's parse and serialize.
            assert message.SerializeToString() == bytes.fromhex(entry["hex"]), entry["name"]


def test_python_written_bytes_decode_in_swift_to_the_same_values(swift_bin, pb):
    corpus = python_corpus(pb)
    lines = [f"{m.DESCRIPTOR.full_name} {m.SerializeToString().hex()}" for _, m in corpus]
    results = swift(swift_bin, "decode", lines)
    assert len(results) == len(corpus), f"{len(corpus)} messages sent, {len(results)} results back"
    for (name, message), result in zip(corpus, results, strict=True):
        assert "error" not in result, f"{name}: {result.get('error')}"
        assert result["values"] == canonical(message), name
        # Swift's re-encoding parses back in Python to the same message.
        again = type(message).FromString(bytes.fromhex(result["hex"]))
        assert again == message, name


def test_unknown_fields_survive_a_swift_round_trip(swift_bin, pb):
    cls = pb.cls(ALL_TYPES)
    rng = random.Random(7)
    originals = [fill(cls(), rng, pb) for _ in range(20)]
    originals.append(cls(int32_value=5, string_value="known", uint64_value=2**64 - 1, child=cls(int32_value=1)))
    lines = [f"{SUBSET} {m.SerializeToString().hex()}" for m in originals]
    results = swift(swift_bin, "decode", lines)
    assert len(results) == len(originals), f"{len(originals)} messages sent, {len(results)} results back"
    for original, result in zip(originals, results, strict=True):
        assert "error" not in result, result
        assert cls.FromString(bytes.fromhex(result["hex"])) == original


def test_both_encodings_of_repeated_fields_are_accepted(swift_bin, pb):
    cls = pb.cls(ALL_TYPES)
    # field 21 (packed repeated_int32) unpacked, field 38 (unpacked_int32) packed.
    raw = bytes([0xA8, 0x01, 0x05, 0xA8, 0x01, 0x07, 0xB2, 0x02, 0x02, 0x01, 0x02])
    expected = cls.FromString(raw)
    assert list(expected.repeated_int32) == [5, 7] and list(expected.unpacked_int32) == [1, 2]
    [result] = swift(swift_bin, "decode", [f"{ALL_TYPES} {raw.hex()}"])
    assert result["values"] == canonical(expected)


@pytest.mark.parametrize(
    "name,hexbytes",
    [
        ("truncated varint", "08ff"),
        ("varint longer than 10 bytes", "08ffffffffffffffffffff01"),
        ("length past the end", "7205616263"),
        ("invalid UTF-8 in a string", "7202c328"),
        ("field number 0", "0001"),
        ("wire type 7", "0f"),
        ("wrong wire type for a message field", "8801" + "01"),
    ],
)
def test_malformed_input_is_rejected_like_python(swift_bin, pb, name, hexbytes):
    from google.protobuf.message import DecodeError

    cls = pb.cls(ALL_TYPES)
    [result] = swift(swift_bin, "decode", [f"{ALL_TYPES} {hexbytes}"])
    assert "error" in result, name
    if name != "wrong wire type for a message field":  # upb keeps it as an unknown field; we refuse it
        with pytest.raises(DecodeError):
            cls.FromString(bytes.fromhex(hexbytes))
