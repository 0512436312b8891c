#!/usr/bin/env python3
"""Generates Swift message types from the .proto files under proto/.

protoc (from grpcio-tools) parses the .proto files into a FileDescriptorSet;
this script turns the descriptors into Swift source that uses the GatewayWire
protobuf runtime (ProtobufReader, ProtobufWriter, ProtobufMessage).

    python proto/tools/generate_swift.py --proto-root proto \
        --out Sources/GatewayWire/Generated readergateway/v1/*.proto

Supported: proto3 scalars, strings, bytes, enums (open), nested messages and
enums, repeated (packed by default), oneof, proto3 `optional`, services.
Not supported (rejected with an error): maps, groups, proto2, extensions.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2

FD = descriptor_pb2.FieldDescriptorProto

SWIFT_KEYWORDS = {
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
    "inout", "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows",
    "static", "struct", "subscript", "typealias", "var", "break", "case", "continue", "default",
    "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch",
    "where", "while", "as", "Any", "catch", "false", "is", "nil", "super", "self", "Self", "throw",
    "throws", "true", "try", "Type", "Protocol",
}

# field type -> (Swift value type, codec type, default literal, packable)
SCALARS = {
    FD.TYPE_INT32: ("Int32", "ProtobufInt32", "0", True),
    FD.TYPE_INT64: ("Int64", "ProtobufInt64", "0", True),
    FD.TYPE_UINT32: ("UInt32", "ProtobufUInt32", "0", True),
    FD.TYPE_UINT64: ("UInt64", "ProtobufUInt64", "0", True),
    FD.TYPE_SINT32: ("Int32", "ProtobufSInt32", "0", True),
    FD.TYPE_SINT64: ("Int64", "ProtobufSInt64", "0", True),
    FD.TYPE_FIXED32: ("UInt32", "ProtobufFixed32", "0", True),
    FD.TYPE_FIXED64: ("UInt64", "ProtobufFixed64", "0", True),
    FD.TYPE_SFIXED32: ("Int32", "ProtobufSFixed32", "0", True),
    FD.TYPE_SFIXED64: ("Int64", "ProtobufSFixed64", "0", True),
    FD.TYPE_FLOAT: ("Float", "ProtobufFloat", "0", True),
    FD.TYPE_DOUBLE: ("Double", "ProtobufDouble", "0", True),
    FD.TYPE_BOOL: ("Bool", "ProtobufBool", "false", True),
    FD.TYPE_STRING: ("String", "ProtobufString", '""', False),
    FD.TYPE_BYTES: ("[UInt8]", "ProtobufBytes", "[]", False),
}


# Fields whose value is a secret: a message's `description` prints `<redacted>` for them
# (ProtobufDescription), so printing or logging a message never leaks one.
SECRET_FIELDS = {"connection_token", "resume_token", "session_token", "secret", "reader_credential", "registration_code"}


ACRONYMS = {"id": "ID", "ids": "IDs", "url": "URL", "ip": "IP", "sdk": "SDK"}


def camel(name, upper_first=False):
    parts = [p for p in name.split("_") if p]
    out = "".join(
        (ACRONYMS[p] if i > 0 and p in ACRONYMS else p[:1].upper() + p[1:]) for i, p in enumerate(parts)
    )
    if not upper_first and out:
        out = out[0].lower() + out[1:]
    return out


def escape(name):
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def enum_value_name(enum_name, value_name):
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum_name).upper() + "_"
    stripped = value_name[len(prefix):] if value_name.startswith(prefix) else value_name
    name = camel(stripped.lower())
    if name[:1].isdigit():
        name = "_" + name
    return name


def package_namespace(package):
    words = {"readergateway": "ReaderGateway"}
    return "".join(words.get(p, p[:1].upper() + p[1:]) for p in package.split("."))


class Comments:
    """Leading comments from SourceCodeInfo, keyed by descriptor path."""

    def __init__(self, file):
        self.by_path = {}
        for location in file.source_code_info.location:
            if location.HasField("leading_comments"):
                self.by_path[tuple(location.path)] = location.leading_comments

    def doc(self, path, indent):
        text = self.by_path.get(tuple(path))
        if not text:
            return []
        lines = text.rstrip().split("\n")
        return [indent + ("/// " + line.strip() if line.strip() else "///") for line in lines]

    def raw(self, path):
        return self.by_path.get(tuple(path), "")


class Generator:
    def __init__(self, files, targets, imports):
        self.files = {f.name: f for f in files}
        self.targets = targets
        self.imports = imports
        self.types = {}  # full proto name -> Swift name
        self.messages = {}  # full proto name -> DescriptorProto
        self.enums = {}
        self.file_of = {}
        for f in files:
            ns = package_namespace(f.package)
            for m in f.message_type:
                self._index_message(f.package, ns, m, f.name)
            for e in f.enum_type:
                self.types[f".{f.package}.{e.name}"] = f"{ns}.{e.name}"
                self.enums[f".{f.package}.{e.name}"] = e

    def files_of_type(self, full):
        return self.file_of.get(full)

    def _index_message(self, prefix, swift_prefix, message, file_name=None):
        full = f".{prefix}.{message.name}"
        self.file_of[full] = file_name
        swift = f"{swift_prefix}.{message.name}"
        self.types[full] = swift
        self.messages[full] = message
        for nested in message.nested_type:
            if nested.options.map_entry:
                raise SystemExit(f"{full}: map fields are not supported; use a repeated message")
            self._index_message(f"{prefix}.{message.name}", swift, nested, file_name)
        for e in message.enum_type:
            self.types[f"{full}.{e.name}"] = f"{swift}.{e.name}"
            self.enums[f"{full}.{e.name}"] = e

    # --- recursion detection -------------------------------------------------

    def _reaches(self, start, goal, seen):
        if start == goal:
            return True
        if start in seen:
            return False
        seen.add(start)
        for field in self.messages[start].field:
            if field.type == FD.TYPE_MESSAGE and field.label != FD.LABEL_REPEATED:
                if self._reaches(field.type_name, goal, seen):
                    return True
        return False

    def is_recursive(self, owner_full, field):
        return field.type == FD.TYPE_MESSAGE and field.label != FD.LABEL_REPEATED and self._reaches(
            field.type_name, owner_full, set()
        )

    # --- files ---------------------------------------------------------------

    def generate(self, name):
        f = self.files[name]
        if f.syntax != "proto3":
            raise SystemExit(f"{name}: only proto3 is supported")
        ns = package_namespace(f.package)
        comments = Comments(f)
        out = [
            f"// Generated from {name} by proto/tools/generate_swift.py. DO NOT EDIT.",
            "// Regenerate with `make generate-proto`; `make test` fails when this file drifts.",
            "",
            "// swiftlint:disable all",
        ]
        for module in self.imports:
            out.append(f"import {module}")
        out += ["", f"extension {ns} {{"]
        body = []
        for i, e in enumerate(f.enum_type):
            body += self.enum(e, comments, [5, i], "    ", f.package)
        for i, m in enumerate(f.message_type):
            body += self.message(m, comments, [4, i], "    ", f".{f.package}")
        for i, s in enumerate(f.service):
            body += self.service(s, comments, [6, i], "    ", f.package)
        out += body
        out.append("}")
        return "\n".join(out) + "\n"

    def enum(self, e, comments, path, ind, scope):
        out = [""]
        out += comments.doc(path, ind) or [f"{ind}/// The `{e.name}` enum."]
        out += [
            f"{ind}public struct {e.name}: ProtobufEnum {{",
            f"{ind}    public var rawValue: Int32",
            f"{ind}    public init(rawValue: Int32) {{ self.rawValue = rawValue }}",
        ]
        names = []
        status_codes = []
        for i, v in enumerate(e.value):
            swift = enum_value_name(e.name, v.name)
            names.append((swift, v.name, v.number))
            out += comments.doc(path + [2, i], ind + "    ")
            out.append(f"{ind}    public static let {escape(swift)} = {e.name}(rawValue: {v.number})")
            match = re.search(r"Status:\s*([A-Z_]+)\.", comments.raw(path + [2, i]))
            if match:
                status_codes.append((swift, match.group(1)))
        out.append(f"{ind}    /// Every value this version knows, in declaration order.")
        out.append(f"{ind}    public static let knownValues: [{e.name}] = [{', '.join('.' + n for n, _, _ in names)}]")
        out.append(f"{ind}    /// The value's name in the .proto file, or nil for a value this version does not know.")
        out.append(f"{ind}    public var protoName: String? {{")
        out.append(f"{ind}        switch rawValue {{")
        seen = set()
        for _, proto, number in names:
            if number in seen:
                continue
            seen.add(number)
            out.append(f'{ind}        case {number}: "{proto}"')
        out.append(f"{ind}        default: nil")
        out.append(f"{ind}        }}")
        out.append(f"{ind}    }}")
        if e.name == "ErrorReason":
            if len(status_codes) != len(names):
                missing = {n for n, _, _ in names} - {n for n, _ in status_codes}
                raise SystemExit(f"ErrorReason values without a 'Status: NAME.' comment: {sorted(missing)}")
            out.append(f"{ind}    /// The canonical status code this reason is always paired with.")
            out.append(f"{ind}    public var statusCode: StatusCode {{")
            out.append(f"{ind}        switch self {{")
            for swift, code in status_codes:
                out.append(f"{ind}        case .{escape(swift)}: .{escape(camel(code.lower()))}")
            out.append(f"{ind}        default: .unknown")
            out.append(f"{ind}        }}")
            out.append(f"{ind}    }}")
        out.append(f"{ind}}}")
        return out

    def swift_type(self, field):
        if field.type in SCALARS:
            return SCALARS[field.type][0]
        return self.types[field.type_name]

    def codec(self, field):
        if field.type == FD.TYPE_ENUM:
            return f"ProtobufEnumField<{self.types[field.type_name]}>"
        return SCALARS[field.type][1]

    def default(self, field):
        if field.type == FD.TYPE_ENUM:
            return f"{self.types[field.type_name]}(rawValue: 0)"
        return SCALARS[field.type][2]

    def message(self, m, comments, path, ind, scope):
        full = f"{scope}.{m.name}"
        if m.extension or m.extension_range:
            raise SystemExit(f"{full}: extensions are not supported")
        real_oneofs = {}
        for index, oneof in enumerate(m.oneof_decl):
            members = [f for f in m.field if f.HasField("oneof_index") and f.oneof_index == index]
            if not all(f.proto3_optional for f in members):
                real_oneofs[index] = (oneof, members)
        out = [""]
        out += comments.doc(path, ind) or [f"{ind}/// The `{m.name}` message."]
        out.append(f"{ind}public struct {m.name}: ProtobufMessage {{")
        i2 = ind + "    "
        out.append(f'{i2}public static let protoMessageName = "{full[1:]}"')
        for index, (oneof, members) in real_oneofs.items():
            enum_name = camel(oneof.name, True)
            out += [""]
            out += comments.doc(path + [8, index], i2) or [f"{i2}/// The `{oneof.name}` oneof."]
            indirect = any(self.is_recursive(full, f) for f in members if f.type == FD.TYPE_MESSAGE)
            out.append(f"{i2}public {'indirect ' if indirect else ''}enum {enum_name}: Equatable, Sendable {{")
            for f in members:
                fi = list(m.field).index(f)
                out += comments.doc(path + [2, fi], i2 + "    ")
                out.append(f"{i2}    case {escape(camel(f.name))}({self.swift_type(f)})")
            out.append(f"{i2}}}")
        # stored properties
        for fi, f in enumerate(m.field):
            if f.type == FD.TYPE_GROUP:
                raise SystemExit(f"{full}.{f.name}: groups are not supported")
            if f.HasField("oneof_index") and f.oneof_index in real_oneofs:
                continue
            name = escape(camel(f.name))
            out.append("")
            out += comments.doc(path + [2, fi], i2)
            t = self.swift_type(f)
            if f.label == FD.LABEL_REPEATED:
                out.append(f"{i2}public var {name}: [{t}] = []")
            elif f.type == FD.TYPE_MESSAGE:
                if self.is_recursive(full, f):
                    out.append(f"{i2}public var {name}: {t}? {{")
                    out.append(f"{i2}    get {{ _{camel(f.name)}?.value }}")
                    out.append(f"{i2}    set {{ _{camel(f.name)} = newValue.map(ProtobufBox.init) }}")
                    out.append(f"{i2}}}")
                    out.append(f"{i2}private var _{camel(f.name)}: ProtobufBox<{t}>? = nil")
                else:
                    out.append(f"{i2}public var {name}: {t}? = nil")
            elif f.proto3_optional:
                out.append(f"{i2}public var {name}: {t}? = nil")
            else:
                out.append(f"{i2}public var {name}: {t} = {self.default(f)}")
        for index, (oneof, _) in real_oneofs.items():
            out.append("")
            out += comments.doc(path + [8, index], i2)
            out.append(f"{i2}public var {escape(camel(oneof.name))}: {camel(oneof.name, True)}? = nil")
        out.append("")
        out.append(f"{i2}/// Fields this version does not know, kept as raw bytes and written back on encode.")
        out.append(f"{i2}public var unknownFields: [UInt8] = []")
        out.append("")
        out.append(f"{i2}public init() {{}}")
        # decode
        out += ["", f"{i2}public init(from reader: inout ProtobufReader) throws {{", f"{i2}    self.init()"]
        out.append(f"{i2}    while let tag = try reader.nextTag() {{")
        out.append(f"{i2}        switch tag.fieldNumber {{")
        for f in m.field:
            name = escape(camel(f.name))
            if f.HasField("oneof_index") and f.oneof_index in real_oneofs:
                oneof = m.oneof_decl[f.oneof_index]
                target = f"self.{escape(camel(oneof.name))}"
                if f.type == FD.TYPE_MESSAGE:
                    value = f"try reader.readMessage(tag, as: {self.swift_type(f)}.self)"
                else:
                    value = f"try reader.read({self.codec(f)}.self, tag)"
                out.append(f"{i2}        case {f.number}: {target} = .{name}({value})")
            elif f.label == FD.LABEL_REPEATED:
                if f.type == FD.TYPE_MESSAGE:
                    out.append(f"{i2}        case {f.number}: try reader.readRepeatedMessage(tag, into: &self.{name})")
                else:
                    out.append(f"{i2}        case {f.number}: try reader.readRepeated({self.codec(f)}.self, tag, into: &self.{name})")
            elif f.type == FD.TYPE_MESSAGE:
                out.append(f"{i2}        case {f.number}: self.{name} = try reader.readMessage(tag, as: {self.swift_type(f)}.self)")
            else:
                out.append(f"{i2}        case {f.number}: self.{name} = try reader.read({self.codec(f)}.self, tag)")
        out.append(f"{i2}        default: try reader.skipField(tag, preservingInto: &self.unknownFields)")
        out.append(f"{i2}        }}")
        out.append(f"{i2}    }}")
        out.append(f"{i2}}}")
        # encode, in field-number order; a oneof is written where its first field would be
        out += ["", f"{i2}public func encode(to writer: inout ProtobufWriter) {{"]
        written_oneofs = set()
        for f in sorted(m.field, key=lambda f: f.number):
            name = escape(camel(f.name))
            if f.HasField("oneof_index") and f.oneof_index in real_oneofs:
                if f.oneof_index in written_oneofs:
                    continue
                written_oneofs.add(f.oneof_index)
                oneof, members = real_oneofs[f.oneof_index]
                out.append(f"{i2}    switch self.{escape(camel(oneof.name))} {{")
                for mf in members:
                    if mf.type == FD.TYPE_MESSAGE:
                        line = f"writer.writeMessage(value, field: {mf.number})"
                    else:
                        line = f"writer.writeAlways({self.codec(mf)}.self, value, field: {mf.number})"
                    out.append(f"{i2}    case .{escape(camel(mf.name))}(let value)?: {line}")
                out.append(f"{i2}    case nil: break")
                out.append(f"{i2}    }}")
            elif f.label == FD.LABEL_REPEATED:
                if f.type == FD.TYPE_MESSAGE:
                    out.append(f"{i2}    for value in self.{name} {{ writer.writeMessage(value, field: {f.number}) }}")
                else:
                    packable = f.type == FD.TYPE_ENUM or SCALARS[f.type][3]
                    packed = packable and not (f.options.HasField("packed") and not f.options.packed)
                    fn = "writePacked" if packed else "writeRepeated"
                    out.append(f"{i2}    writer.{fn}({self.codec(f)}.self, self.{name}, field: {f.number})")
            elif f.type == FD.TYPE_MESSAGE:
                out.append(f"{i2}    if let value = self.{name} {{ writer.writeMessage(value, field: {f.number}) }}")
            elif f.proto3_optional:
                out.append(f"{i2}    if let value = self.{name} {{ writer.writeAlways({self.codec(f)}.self, value, field: {f.number}) }}")
            else:
                out.append(f"{i2}    writer.writeSingular({self.codec(f)}.self, self.{name}, field: {f.number})")
        out.append(f"{i2}    writer.writeRaw(self.unknownFields)")
        out.append(f"{i2}}}")
        out += self.description(m, full, real_oneofs, i2)
        for ni, nested in enumerate(m.nested_type):
            out += self.message(nested, comments, path + [3, ni], i2, full)
        for ei, e in enumerate(m.enum_type):
            out += self.enum(e, comments, path + [4, ei], i2, full)
        out.append(f"{ind}}}")
        return out

    def describe(self, f, value, always=False):
        """One field's line in `description` (ProtobufDescription), for the value `value`."""
        label = camel(f.name)
        if f.label == FD.LABEL_REPEATED:
            if f.type == FD.TYPE_MESSAGE:
                return f'd.messages("{label}", {value})'
            if f.type == FD.TYPE_STRING:
                return f'd.strings("{label}", {value})'
            if f.type == FD.TYPE_BYTES:
                return f'd.values("{label}", {value}.map {{ "\\($0.count) bytes" }})'
            return f'd.values("{label}", {value})'
        if f.type == FD.TYPE_MESSAGE:
            return f'd.message("{label}", {value})'
        if f.type == FD.TYPE_STRING:
            if f.name in SECRET_FIELDS:
                return f'd.secret("{label}", {value})'
            return f'd.string("{label}", {value})'
        if f.type == FD.TYPE_BYTES:
            return f'd.bytes("{label}", {value})'
        if always:
            default = "false"
        elif f.type == FD.TYPE_ENUM:
            default = f"{value}.rawValue == 0"
        elif f.type == FD.TYPE_BOOL:
            default = f"!{value}"
        else:
            default = f"{value} == 0"
        return f'd.value("{label}", {value}, isDefault: {default})'

    def description(self, m, full, real_oneofs, i2):
        if any(camel(f.name) == "description" for f in m.field):
            # The message's own `description` field is its CustomStringConvertible text
            # (CartLineItem: what is sold); such a message must hold no secret.
            if any(f.name in SECRET_FIELDS for f in m.field):
                raise SystemExit(f"{full}: a message with a `description` field cannot hold a secret field")
            return []
        out = ["", f"{i2}/// The fields that are set, secrets redacted (ProtobufDescription).", f"{i2}public var description: String {{"]
        out.append(f"{i2}    var d = ProtobufDescription(Self.protoMessageName)")
        described_oneofs = set()
        for f in m.field:
            name = escape(camel(f.name))
            if f.HasField("oneof_index") and f.oneof_index in real_oneofs:
                if f.oneof_index in described_oneofs:
                    continue
                described_oneofs.add(f.oneof_index)
                oneof, members = real_oneofs[f.oneof_index]
                out.append(f"{i2}    switch self.{escape(camel(oneof.name))} {{")
                for mf in members:
                    out.append(f"{i2}    case .{escape(camel(mf.name))}(let value)?: {self.describe(mf, 'value', always=True)}")
                out.append(f"{i2}    case nil: break")
                out.append(f"{i2}    }}")
            elif f.proto3_optional and f.type != FD.TYPE_MESSAGE:
                out.append(f"{i2}    if let value = self.{name} {{ {self.describe(f, 'value', always=True)} }}")
            else:
                out.append(f"{i2}    {self.describe(f, 'self.' + name)}")
        out.append(f"{i2}    d.unknown(self.unknownFields)")
        out.append(f"{i2}    return d.text")
        out.append(f"{i2}}}")
        return out

    def service(self, s, comments, path, ind, package):
        out = [""]
        out += comments.doc(path, ind)
        out.append(f"{ind}public enum {s.name} {{")
        out.append(f'{ind}    /// The fully qualified service name used in method paths.')
        out.append(f'{ind}    public static let serviceName = "{package}.{s.name}"')
        names = []
        for mi, method in enumerate(s.method):
            if method.client_streaming and method.server_streaming:
                kind = ".bidirectionalStreaming"
            elif method.server_streaming:
                kind = ".serverStreaming"
            elif method.client_streaming:
                kind = ".clientStreaming"
            else:
                kind = ".unary"
            name = escape(camel(method.name))
            names.append(name)
            out.append("")
            out += comments.doc(path + [2, mi], ind + "    ")
            req = self.types[method.input_type]
            res = self.types[method.output_type]
            out.append(f"{ind}    public static let {name} = ProtobufMethod<{req}, {res}>(")
            out.append(f'{ind}        service: serviceName, method: "{method.name}", kind: {kind}')
            out.append(f"{ind}    )")
        out.append("")
        out.append(f"{ind}    /// Every method of the service, in declaration order.")
        out.append(f"{ind}    public static let methods: [MethodDescriptor] = [")
        for name in names:
            out.append(f"{ind}        {name}.descriptor,")
        out.append(f"{ind}    ]")
        out.append(f"{ind}}}")
        return out


def swift_service_name(name):
    """A proto service's name as the prefix of its Swift route types, its acronyms in one case
    as Swift writes them (`Sdk` -> `SDKRoutes`). The method paths on the wire and the
    `ReaderGatewayV1` namespace keep the proto's own spelling."""
    words = re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", name)
    return "".join(ACRONYMS.get(word.lower(), word) for word in words)


def routes(generator, s, comments, path, package):
    """The server side of one service: a protocol with one route requirement per method,
    so that a service missing a handler does not compile, and `registerMethods(with:)`
    routing every method path to its requirement."""
    ns = package_namespace(package)
    swift = swift_service_name(s.name)
    out = [
        "// Generated by proto/tools/generate_swift.py --routes. DO NOT EDIT.",
        "",
        "import GatewayRPC",
        "import GatewayWire",
        "",
        f"/// The route types of `{package}.{s.name}`, one per method (see ``{swift}Routes``).",
        f"enum {swift}Route {{",
    ]
    requirements = []
    for mi, method in enumerate(s.method):
        req = generator.types[method.input_type]
        res = generator.types[method.output_type]
        if method.client_streaming and method.server_streaming:
            kind = "BidirectionalRoute"
        elif method.server_streaming:
            kind = "ServerStreamingRoute"
        elif method.client_streaming:
            raise SystemExit(f"{s.name}.{method.name}: client streaming is not supported by --routes")
        else:
            kind = "UnaryRoute"
        out.append(f"    typealias {method.name} = {kind}<{req}, {res}>")
        requirements.append((mi, method, escape(camel(method.name))))
    out += [
        "}",
        "",
        f"/// The methods of `{package}.{s.name}`, one case each: a `switch` over them (a table",
        "/// kept beside the routes, such as the permission each method needs) stops compiling",
        "/// when a method is added without its row.",
        f"enum {swift}Method: CaseIterable, Sendable {{",
    ]
    for mi, method, name in requirements:
        out.append(f"    case {name}")
    out += [
        "",
        "    /// The method's path on the wire.",
        "    var path: String {",
        "        switch self {",
    ]
    for mi, method, name in requirements:
        out.append(f"        case .{name}: {ns}.{s.name}.{name}.path")
    out += [
        "        }",
        "    }",
        "}",
        "",
    ]
    out += comments.doc(path, "")
    out += [
        "///",
        f"/// The server side of `{package}.{s.name}`: one requirement per method, so a",
        "/// conforming service that misses a handler does not compile; `registerMethods(with:)`",
        "/// serves every method path with its requirement.",
        f"protocol {swift}Routes: RouteProvider {{",
    ]
    for mi, method, name in requirements:
        out += comments.doc(path + [2, mi], "    ")
        out.append(f"    var {name}: {swift}Route.{method.name} {{ get }}")
    out += [
        "}",
        "",
        f"extension {swift}Routes {{",
        f"    /// Serves every method of `{package}.{s.name}` with its route.",
        "    func registerMethods(with router: inout MethodRouter) {",
    ]
    for mi, method, name in requirements:
        out.append(f"        router.register({ns}.{s.name}.{name}.path, {name}.handler)")
    out += [
        "    }",
        "}",
        "",
    ]
    return "\n".join(out)


def output_name(proto_name, package):
    base = os.path.splitext(os.path.basename(proto_name))[0]
    return f"{package_namespace(package)}+{camel(base, True)}.pb.swift"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--proto-root", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--import", dest="imports", action="append", default=[])
    parser.add_argument(
        "--routes", action="store_true",
        help="write each service's server routes (a protocol per service) instead of the messages",
    )
    parser.add_argument("protos", nargs="+", help="paths relative to --proto-root")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        descriptor_path = os.path.join(tmp, "descriptors.pb")
        command = [
            sys.executable, "-m", "grpc_tools.protoc", f"-I{args.proto_root}",
            f"--descriptor_set_out={descriptor_path}", "--include_imports", "--include_source_info",
        ] + args.protos
        subprocess.run(command, check=True)
        with open(descriptor_path, "rb") as handle:
            descriptor_set = descriptor_pb2.FileDescriptorSet.FromString(handle.read())

    files = [f for f in descriptor_set.file if not f.name.startswith("google/")]
    generator = Generator(files, args.protos, args.imports)
    os.makedirs(args.out, exist_ok=True)
    if args.routes:
        for name in args.protos:
            f = generator.files[name]
            comments = Comments(f)
            for i, service in enumerate(f.service):
                with open(os.path.join(args.out, f"{swift_service_name(service.name)}Routes.swift"), "w") as handle:
                    handle.write(routes(generator, service, comments, [6, i], f.package))
        return
    for package in sorted({generator.files[name].package for name in args.protos}):
        ns = package_namespace(package)
        names = sorted(
            swift for full, swift in generator.types.items()
            if full in generator.messages and generator.files_of_type(full) in args.protos
            and full.startswith(f".{package}.")
        )
        lines = [
            "// Generated by proto/tools/generate_swift.py. DO NOT EDIT.",
            "",
        ]
        lines += [f"import {module}" for module in args.imports]
        lines += [
            "",
            f"/// The messages, enums and services of the `{package}` protobuf package.",
            f"public enum {ns} {{",
            "    /// Every message type of the package, nested ones included, by name.",
            "    public static let messageTypes: [any ProtobufMessage.Type] = [",
        ]
        lines += [f"        {name}.self," for name in names]
        lines += ["    ]", "}", ""]
        with open(os.path.join(args.out, f"{ns}.pb.swift"), "w") as handle:
            handle.write("\n".join(lines))
    for name in args.protos:
        text = generator.generate(name)
        package = generator.files[name].package
        with open(os.path.join(args.out, output_name(name, package)), "w") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
