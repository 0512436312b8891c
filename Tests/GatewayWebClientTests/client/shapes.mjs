// Checks an object the library hands a page against terminal-js-shapes.json (Stripe
// Terminal JS's shapes): every Stripe field present with its type, every other field one
// the gateway documents, every key snake_case at every depth, nothing JSON cannot write.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

export const SHAPES = JSON.parse(readFileSync(new URL("./terminal-js-shapes.json", import.meta.url), "utf8"));

function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Whether `value` is one of the alternatives of a field's description ("string|null", "enum:a,b|null", "const:x"). */
export function matches(description, value) {
  return description.split("|").some((alternative) => {
    if (alternative.startsWith("enum:")) return alternative.slice(5).split(",").includes(value);
    if (alternative.startsWith("const:")) return value === alternative.slice(6);
    return typeOf(value) === alternative;
  });
}

/** Every key of `value`, at every depth, is snake_case; no BigInt anywhere (JSON.stringify would throw). */
export function assertPlainSnakeCase(value, path = "") {
  assert.doesNotThrow(() => JSON.stringify(value), `${path || "the object"} cannot be written as JSON`);
  if (typeOf(value) === "array") value.forEach((item, index) => assertPlainSnakeCase(item, `${path}[${index}]`));
  if (typeOf(value) !== "object") return;
  for (const [key, field] of Object.entries(value)) {
    assert.match(key, /^[a-z][a-z0-9_]*$/, `${path}.${key} is not snake_case`);
    assertPlainSnakeCase(field, `${path}.${key}`);
  }
}

/** `value` has the shape SHAPES[name] describes. */
export function assertShape(name, value) {
  const shape = SHAPES[name];
  assertPlainSnakeCase(value, name);
  const fields = JSON.parse(JSON.stringify(value));
  for (const [field, description] of Object.entries(shape.stripe)) {
    assert.ok(field in fields, `${name}.${field} (Terminal JS has it) is missing`);
    assert.ok(matches(description, fields[field]), `${name}.${field} is ${JSON.stringify(fields[field])}, not ${description}`);
  }
  for (const [field, fieldValue] of Object.entries(fields)) {
    if (field in shape.stripe) continue;
    assert.ok(field in shape.gateway, `${name}.${field} is neither Terminal JS's nor a documented gateway field`);
    assert.ok(matches(shape.gateway[field], fieldValue), `${name}.${field} is ${JSON.stringify(fieldValue)}, not ${shape.gateway[field]}`);
  }
}
