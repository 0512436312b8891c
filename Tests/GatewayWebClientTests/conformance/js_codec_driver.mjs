// The JavaScript side of the codec conformance test (test_js_conformance.py).
//
//   node js_codec_driver.mjs CASES.json [MODULE.js ...]
//
// CASES.json: [{ "type": "readergateway.v1.X", "json": {...}, "hex": "..." }] where `json`
// is the proto3 JSON form of the message (enums as numbers) and `hex` its bytes as Python's
// official runtime wrote them. Prints, for each case, what this library makes of it:
// { "decoded": <proto3 JSON of decode(hex)> | null, "error": <message> | null,
//   "encoded": <hex of encode(fromJSON(json))> | null }. Each MODULE.js (a generated codec of a
// test-only proto) adds its types to the library's.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import * as errors from "../../../Sources/GatewayWebClient/generated/readergateway/v1/errors.js";
import * as common from "../../../Sources/GatewayWebClient/generated/readergateway/v1/common.js";
import * as frames from "../../../Sources/GatewayWebClient/generated/readergateway/v1/frames.js";
import * as sdk from "../../../Sources/GatewayWebClient/generated/readergateway/v1/sdk.js";
import * as admin from "../../../Sources/GatewayWebClient/generated/readergateway/v1/admin.js";

const [casesPath, ...extraModules] = process.argv.slice(2);
const extra = await Promise.all(extraModules.map((path) => import(pathToFileURL(path).href)));
const types = new Map();
for (const module of [errors, common, frames, sdk, admin, ...extra]) {
  for (const value of Object.values(module)) {
    if (value && typeof value.decode === "function") types.set(value.typeName, value);
  }
}

const SIXTY_FOUR = new Set(["int64", "uint64", "sint64", "fixed64", "sfixed64"]);

function toJSON(type, message) {
  const out = {};
  for (const field of type.fields) {
    const value = message[field.name];
    if (value === undefined || value === null) continue;
    if (field.repeated) {
      if (value.length > 0) out[field.name] = value.map((item) => scalarToJSON(field, item));
    } else if (field.kind === "message" || field.optional || field.oneof || !isDefault(field, value)) {
      out[field.name] = scalarToJSON(field, value);
    }
  }
  return out;
}

function isDefault(field, value) {
  if (field.kind === "bytes") return value.length === 0;
  if (SIXTY_FOUR.has(field.kind)) return value === 0n;
  return value === 0 || value === "" || value === false;
}

function scalarToJSON(field, value) {
  if (field.kind === "message") return toJSON(field.ref, value);
  if (SIXTY_FOUR.has(field.kind)) return value.toString();
  if (field.kind === "bytes") return Buffer.from(value).toString("base64");
  return value;
}

function fromJSON(type, json) {
  const out = {};
  for (const field of type.fields) {
    const value = json[field.name];
    if (value === undefined) continue;
    out[field.name] = field.repeated ? value.map((item) => scalarFromJSON(field, item)) : scalarFromJSON(field, value);
  }
  return out;
}

function scalarFromJSON(field, value) {
  if (field.kind === "message") return fromJSON(field.ref, value);
  if (SIXTY_FOUR.has(field.kind)) return BigInt(value);
  if (field.kind === "bytes") return new Uint8Array(Buffer.from(value, "base64"));
  if (field.kind === "float" || field.kind === "double") return Number(value);
  return value;
}

const cases = JSON.parse(readFileSync(casesPath, "utf8"));
const results = cases.map((testCase) => {
  const type = types.get(testCase.type);
  if (type === undefined) return { decoded: null, error: `no JavaScript type ${testCase.type}`, encoded: null };
  let decoded = null, error = null, encoded = null;
  try {
    decoded = toJSON(type, type.decode(Buffer.from(testCase.hex, "hex")));
  } catch (caught) {
    error = String(caught.message);
  }
  if (testCase.json !== null) encoded = Buffer.from(type.encode(fromJSON(type, testCase.json))).toString("hex");
  return { decoded, error, encoded };
});
process.stdout.write(JSON.stringify({ types: [...types.keys()].sort(), results }));
