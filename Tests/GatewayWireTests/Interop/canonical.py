"""The canonical JSON form of a message that wire-interop also writes (CanonicalJSON.swift)."""

import struct

from google.protobuf.descriptor import FieldDescriptor as F

ACRONYMS = {"id": "ID", "ids": "IDs", "url": "URL", "ip": "IP"}
INTEGERS = {
    F.TYPE_INT32, F.TYPE_INT64, F.TYPE_UINT32, F.TYPE_UINT64, F.TYPE_SINT32, F.TYPE_SINT64,
    F.TYPE_FIXED32, F.TYPE_FIXED64, F.TYPE_SFIXED32, F.TYPE_SFIXED64, F.TYPE_ENUM,
}


def swift_name(name):
    parts = [p for p in name.split("_") if p]
    out = "".join((ACRONYMS[p] if i > 0 and p in ACRONYMS else p[:1].upper() + p[1:]) for i, p in enumerate(parts))
    return out[:1].lower() + out[1:]


def is_repeated(field):
    repeated = getattr(field, "is_repeated", None)
    if repeated is not None:
        return repeated
    return field.label == F.LABEL_REPEATED


def real_oneof(field):
    oneof = field.containing_oneof
    if oneof is None:
        return None
    if len(oneof.fields) == 1 and oneof.name == "_" + field.name:
        return None  # proto3 `optional`
    return oneof


def value(field, v):
    if field.type in INTEGERS:
        return str(int(v))
    if field.type == F.TYPE_FLOAT:
        return str(struct.unpack("<I", struct.pack("<f", v))[0])
    if field.type == F.TYPE_DOUBLE:
        return str(struct.unpack("<Q", struct.pack("<d", v))[0])
    if field.type == F.TYPE_BOOL:
        return bool(v)
    if field.type == F.TYPE_STRING:
        return v
    if field.type == F.TYPE_BYTES:
        return v.hex()
    if field.type == F.TYPE_MESSAGE:
        return canonical(v)
    raise AssertionError(f"unsupported field type {field.type}")


def canonical(message):
    out = {}
    for field in message.DESCRIPTOR.fields:
        oneof = real_oneof(field)
        if oneof is not None:
            which = message.WhichOneof(oneof.name)
            if which is None:
                out[swift_name(oneof.name)] = None
            else:
                member = message.DESCRIPTOR.fields_by_name[which]
                out[swift_name(oneof.name)] = {swift_name(which): value(member, getattr(message, which))}
            continue
        name = swift_name(field.name)
        if is_repeated(field):
            out[name] = [value(field, v) for v in getattr(message, field.name)]
        elif field.type == F.TYPE_MESSAGE or field.containing_oneof is not None:
            out[name] = value(field, getattr(message, field.name)) if message.HasField(field.name) else None
        else:
            out[name] = value(field, getattr(message, field.name))
    return out
