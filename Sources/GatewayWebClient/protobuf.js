// The proto3 binary wire format for the generated codecs in ./generated/ (no dependencies).
//
// A message type is a schema (its fields, made by proto/tools/generate_js.py from proto/)
// plus encode/decode. Messages are plain objects keyed by the fields' JSON names
// (lowerCamelCase). Values: numbers for 32-bit integers, floats and enums (open: an unknown
// number stays a number), BigInt for 64-bit integers (a number is accepted when encoding),
// strings, Uint8Array for bytes, arrays for repeated fields, plain objects for messages. A
// oneof member is a field like the others; at most one of a oneof may be set.
//
// The rules are PROTOCOL.md section 10's: fields in any order, unknown fields skipped,
// repeated numbers written packed and read packed or not, the last value of a singular
// field wins, strings must be UTF-8, a declared field with the wrong wire type is an error,
// varints over 10 bytes or 64 bits are errors, nesting is bounded.

/** A decoding error: the bytes are not a valid encoding of the message. */
export class ProtobufError extends Error {
  constructor(message) {
    super(message);
    this.name = "ProtobufError";
  }
}

const VARINT = 0, FIXED64 = 1, LENGTH_DELIMITED = 2, FIXED32 = 5;
const MAX_DEPTH = 64;
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// Scalar kinds: wire type, default, packable.
const SCALARS = {
  int32: [VARINT, 0], int64: [VARINT, 0n], uint32: [VARINT, 0], uint64: [VARINT, 0n],
  sint32: [VARINT, 0], sint64: [VARINT, 0n], bool: [VARINT, false], enum: [VARINT, 0],
  fixed32: [FIXED32, 0], sfixed32: [FIXED32, 0], float: [FIXED32, 0],
  fixed64: [FIXED64, 0n], sfixed64: [FIXED64, 0n], double: [FIXED64, 0],
  string: [LENGTH_DELIMITED, ""], bytes: [LENGTH_DELIMITED, null], message: [LENGTH_DELIMITED, undefined],
};

/**
 * Defines an enum: `values` maps the short names (the proto names without the enum's
 * prefix) to numbers. The result has the names as properties and `nameOf(number)`.
 */
export function defineEnum(typeName, values) {
  const names = new Map(Object.entries(values).map(([name, number]) => [number, name]));
  return Object.freeze({ ...values, typeName, nameOf: (number) => names.get(number) });
}

/**
 * Defines a message type. `fields` is a function (so types may refer to types defined
 * later) returning [number, jsonName, kind, flags, type] rows: kind is a scalar name,
 * "enum" or "message"; flags has "r" (repeated), "o" (proto3 optional) or "1:<oneof>".
 */
export function defineMessage(typeName, fields) {
  let table = null;
  const type = {
    typeName,
    get fields() {
      if (table === null) {
        table = fields().map(([number, name, kind, flags = "", ref = null]) => ({
          number, name, kind, ref,
          repeated: flags === "r",
          optional: flags === "o",
          oneof: flags.startsWith("1:") ? flags.slice(2) : null,
          wireType: SCALARS[kind][0],
        }));
      }
      return table;
    },
    /** A message with every field at its default, then `init`'s values. */
    create(init = {}) {
      const message = {};
      for (const field of type.fields) {
        if (field.repeated) message[field.name] = [];
        else if (!field.optional && !field.oneof && field.kind !== "message") message[field.name] = defaultOf(field.kind);
      }
      return Object.assign(message, init);
    },
    /** The message's bytes. */
    encode(message) {
      const writer = new Writer();
      writeMessage(writer, type, message ?? {});
      return writer.finish();
    },
    /** The message in `bytes`; throws ProtobufError when they are not a valid encoding. */
    decode(bytes, { maxDepth = MAX_DEPTH } = {}) {
      const reader = new Reader(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
      return readMessage(reader, type, reader.end, maxDepth);
    },
  };
  return type;
}

/** Which member of the oneof `group` is set in `message`, or undefined. */
export function oneofCase(type, message, group) {
  const member = type.fields.find((field) => field.oneof === group && message[field.name] !== undefined && message[field.name] !== null);
  return member?.name;
}

function defaultOf(kind) {
  return kind === "bytes" ? new Uint8Array(0) : SCALARS[kind][1];
}

function isDefault(kind, value) {
  switch (kind) {
    case "bytes": return value.length === 0;
    case "int64": case "uint64": case "sint64": case "fixed64": case "sfixed64": return BigInt(value) === 0n;
    case "float": case "double": return value === 0 && !Object.is(value, -0);
    default: return value === SCALARS[kind][1];
  }
}

// --- encoding -------------------------------------------------------------

class Writer {
  constructor() {
    this.bytes = new Uint8Array(64);
    this.length = 0;
  }
  ensure(count) {
    if (this.length + count <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + count) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
  byte(value) {
    this.ensure(1);
    this.bytes[this.length++] = value;
  }
  varint(value) { // value: BigInt, taken modulo 2^64
    let rest = BigInt.asUintN(64, value);
    while (rest >= 0x80n) {
      this.byte(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    this.byte(Number(rest));
  }
  varint32(value) { // value: a number that fits in 32 bits (negatives take 10 bytes)
    if (value < 0) return this.varint(BigInt(value));
    while (value >= 0x80) {
      this.byte((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    this.byte(value);
  }
  raw(bytes) {
    this.ensure(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }
  fixed(size, write) {
    this.ensure(size);
    write(new DataView(this.bytes.buffer, this.bytes.byteOffset + this.length, size));
    this.length += size;
  }
  tag(number, wireType) { this.varint32(number * 8 + wireType); }
  finish() { return this.bytes.slice(0, this.length); }
}

function writeScalar(writer, kind, value) {
  switch (kind) {
    case "int32": case "enum": writer.varint32(Number(value) | 0); break;
    case "uint32": writer.varint32(Number(value) >>> 0); break;
    case "sint32": { const v = Number(value) | 0; writer.varint32(((v << 1) ^ (v >> 31)) >>> 0); break; }
    case "int64": case "uint64": writer.varint(BigInt(value)); break;
    case "sint64": { const v = BigInt.asIntN(64, BigInt(value)); writer.varint((v << 1n) ^ (v >> 63n)); break; }
    case "bool": writer.byte(value ? 1 : 0); break;
    case "fixed32": writer.fixed(4, (view) => view.setUint32(0, Number(value) >>> 0, true)); break;
    case "sfixed32": writer.fixed(4, (view) => view.setInt32(0, Number(value) | 0, true)); break;
    case "float": writer.fixed(4, (view) => view.setFloat32(0, value, true)); break;
    case "fixed64": writer.fixed(8, (view) => view.setBigUint64(0, BigInt.asUintN(64, BigInt(value)), true)); break;
    case "sfixed64": writer.fixed(8, (view) => view.setBigInt64(0, BigInt.asIntN(64, BigInt(value)), true)); break;
    case "double": writer.fixed(8, (view) => view.setFloat64(0, value, true)); break;
    case "string": { const bytes = utf8Encoder.encode(value); writer.varint32(bytes.length); writer.raw(bytes); break; }
    case "bytes": writer.varint32(value.length); writer.raw(value); break;
    default: throw new TypeError(`unknown kind ${kind}`);
  }
}

function writeMessage(writer, type, message) {
  const oneofsSeen = new Set();
  for (const field of type.fields) {
    const value = message[field.name];
    if (value === undefined || value === null) continue;
    if (field.oneof) {
      if (oneofsSeen.has(field.oneof)) throw new TypeError(`${type.typeName}: more than one member of oneof ${field.oneof} is set`);
      oneofsSeen.add(field.oneof);
    }
    if (field.repeated) {
      if (value.length === 0) continue;
      if (field.wireType !== LENGTH_DELIMITED) { // packed
        const inner = new Writer();
        for (const item of value) writeScalar(inner, field.kind, item);
        writer.tag(field.number, LENGTH_DELIMITED);
        writer.varint32(inner.length);
        writer.raw(inner.bytes.subarray(0, inner.length));
      } else {
        for (const item of value) writeField(writer, field, item);
      }
    } else if (field.kind === "message" || field.optional || field.oneof || !isDefault(field.kind, value)) {
      writeField(writer, field, value);
    }
  }
}

function writeField(writer, field, value) {
  writer.tag(field.number, field.wireType);
  if (field.kind === "message") {
    const inner = new Writer();
    writeMessage(inner, field.ref, value);
    writer.varint32(inner.length);
    writer.raw(inner.bytes.subarray(0, inner.length));
  } else {
    writeScalar(writer, field.kind, value);
  }
}

// --- decoding -------------------------------------------------------------

class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.position = 0;
    this.end = bytes.length;
  }
  varint() { // BigInt
    let result = 0n;
    for (let index = 0; index < 10; index++) {
      if (this.position >= this.end) throw new ProtobufError("truncated varint");
      const byte = this.bytes[this.position++];
      if (index === 9 && byte > 1) throw new ProtobufError("varint over 64 bits");
      result |= BigInt(byte & 0x7f) << BigInt(7 * index);
      if (byte < 0x80) return result;
    }
    throw new ProtobufError("varint over 10 bytes");
  }
  need(count) {
    if (count > this.end - this.position) throw new ProtobufError("truncated field");
  }
  length() {
    const length = this.varint();
    if (length > BigInt(this.end - this.position)) throw new ProtobufError("length past the end of the message");
    return Number(length);
  }
  skip(wireType) {
    switch (wireType) {
      case VARINT: this.varint(); break;
      case FIXED64: this.need(8); this.position += 8; break;
      case LENGTH_DELIMITED: this.position += this.length(); break;
      case FIXED32: this.need(4); this.position += 4; break;
      default: throw new ProtobufError(`wire type ${wireType} is not supported`);
    }
  }
}

function readScalar(reader, kind) {
  switch (kind) {
    case "int32": case "enum": return Number(BigInt.asIntN(32, reader.varint()));
    case "uint32": return Number(BigInt.asUintN(32, reader.varint()));
    case "sint32": { const v = Number(BigInt.asUintN(32, reader.varint())); return (v >>> 1) ^ -(v & 1); }
    case "int64": return BigInt.asIntN(64, reader.varint());
    case "uint64": return reader.varint();
    case "sint64": { const v = reader.varint(); return BigInt.asIntN(64, (v >> 1n) ^ -(v & 1n)); }
    case "bool": return reader.varint() !== 0n;
    case "fixed32": reader.need(4); reader.position += 4; return reader.view.getUint32(reader.position - 4, true);
    case "sfixed32": reader.need(4); reader.position += 4; return reader.view.getInt32(reader.position - 4, true);
    case "float": reader.need(4); reader.position += 4; return reader.view.getFloat32(reader.position - 4, true);
    case "fixed64": reader.need(8); reader.position += 8; return reader.view.getBigUint64(reader.position - 8, true);
    case "sfixed64": reader.need(8); reader.position += 8; return reader.view.getBigInt64(reader.position - 8, true);
    case "double": reader.need(8); reader.position += 8; return reader.view.getFloat64(reader.position - 8, true);
    case "string": {
      const length = reader.length();
      reader.position += length;
      try {
        return utf8Decoder.decode(reader.bytes.subarray(reader.position - length, reader.position));
      } catch {
        throw new ProtobufError("string field is not valid UTF-8");
      }
    }
    case "bytes": { const length = reader.length(); reader.position += length; return reader.bytes.slice(reader.position - length, reader.position); }
    default: throw new TypeError(`unknown kind ${kind}`);
  }
}

function readMessage(reader, type, end, depth) {
  if (depth <= 0) throw new ProtobufError("messages nested too deeply");
  const message = type.create();
  const byNumber = fieldsByNumber(type);
  const savedEnd = reader.end;
  reader.end = end;
  while (reader.position < end) {
    const tag = reader.varint();
    const number = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (number === 0 || tag >> 3n > 0x1fffffffn) throw new ProtobufError("invalid field number");
    const field = byNumber.get(number);
    if (field === undefined) {
      reader.skip(wireType);
      continue;
    }
    if (field.repeated && wireType === LENGTH_DELIMITED && field.wireType !== LENGTH_DELIMITED) {
      const length = reader.length(); // first: it moves the position past the length prefix
      const packedEnd = reader.position + length;
      const savedPackedEnd = reader.end;
      reader.end = packedEnd;
      while (reader.position < packedEnd) message[field.name].push(readScalar(reader, field.kind));
      reader.end = savedPackedEnd;
      continue;
    }
    if (wireType !== field.wireType) throw new ProtobufError(`${type.typeName}.${field.name}: wire type ${wireType}, expected ${field.wireType}`);
    let value;
    if (field.kind === "message") {
      const length = reader.length();
      value = readMessage(reader, field.ref, reader.position + length, depth - 1);
    } else {
      value = readScalar(reader, field.kind);
    }
    if (field.repeated) {
      message[field.name].push(value);
    } else {
      if (field.oneof) for (const other of type.fields) if (other.oneof === field.oneof) delete message[other.name];
      message[field.name] = value;
    }
  }
  reader.end = savedEnd;
  return message;
}

const numberTables = new WeakMap();
function fieldsByNumber(type) {
  let table = numberTables.get(type);
  if (table === undefined) {
    table = new Map(type.fields.map((field) => [field.number, field]));
    numberTables.set(type, table);
  }
  return table;
}
