// No method of the library rejects or throws, whatever it is given: bad arguments of every
// kind resolve with { error } naming the argument, and every error writes itself as JSON
// with its message. Runs against the fake gateway (calls that pass their arguments go out).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ReaderGateway, RPCError } from "../../../Sources/GatewayWebClient/readergateway.js";
import { assertShape } from "./shapes.mjs";

const URL = process.env.GATEWAY_WS_URL;

const hostile = new Proxy({}, { get() { throw new Error("a getter that throws"); }, has() { throw new Error("a trap that throws"); } });
const BAD = [
  undefined, null, 0, -1, 1.5, NaN, Infinity, 2 ** 53, 12n, "", "not a secret", "pi_ok_secret_", [], [1, 2], {}, { id: 5 },
  { id: "" }, { type: "cart" }, { type: "cart", cart: { line_items: "x", total: 1, currency: "usd" } },
  { type: "cart", cart: { line_items: [null], total: 1, currency: "usd" } },
  { type: "cart", cart: { line_items: [{ description: "a", amount: -5 }], total: 1, currency: "usd" } },
  { id: "pi_1", amount: 2 ** 60 }, { id: "pi_1", amount: "12" }, { fail_if_in_use: "yes" }, { config_override: 3 },
  { config_override: { skip_tipping: "no" } }, { location: 7 }, { method: "bluetooth_scan" }, () => {}, Symbol("s"), true, hostile,
  Object.freeze({ id: 7 }), new Date(0), /re/,
];
const METHODS = {
  discoverReaders: 1, cancelDiscovery: 0, connectReader: 2, easyConnect: 1, disconnectReader: 0, collectPaymentMethod: 2,
  cancelCollectPaymentMethod: 0, processPayment: 2, setReaderDisplay: 1, clearReaderDisplay: 0, rebootReader: 0,
  installAvailableUpdate: 0, clearCachedCredentials: 0, close: 0,
};
const GETTERS = ["getConnectionStatus", "getPaymentStatus", "getGatewayStatus", "getConnectedReader", "getSession"];

function label(value) {
  try {
    return typeof value === "bigint" ? `${value}n` : typeof value === "symbol" ? value.toString() : JSON.stringify(value) ?? String(value);
  } catch {
    return "(unprintable)";
  }
}

/** Calls `method` with `args`: it must return a promise (no throw) that resolves (no rejection). */
async function settle(terminal, method, args) {
  let promise;
  assert.doesNotThrow(() => { promise = terminal[method](...args); }, `${method}(${args.map(label)}) threw`);
  assert.ok(promise instanceof Promise, `${method} returned ${promise}, not a promise`);
  let outcome;
  await assert.doesNotReject(async () => { outcome = await promise; }, `${method}(${args.map(label)}) rejected`);
  assert.equal(typeof outcome, "object", `${method} resolved with ${label(outcome)}`);
  if (outcome.error !== undefined) {
    assert.ok(outcome.error instanceof RPCError);
    assertShape("error", outcome.error);
    const written = JSON.parse(JSON.stringify(outcome));
    assert.equal(written.error.message, outcome.error.message);
    assert.ok(written.error.message.length > 10, `${method}: an error without a message: ${JSON.stringify(written)}`);
  }
  assert.doesNotThrow(() => JSON.stringify(outcome), `${method}'s result cannot be written as JSON`);
  return outcome;
}

test("every method, given bad arguments of every kind, resolves; argument errors name the argument", async () => {
  const terminal = ReaderGateway.create({ url: URL, onFetchConnectionToken: async () => "pst_1" });
  try {
    for (const [method, arity] of Object.entries(METHODS)) {
      if (method === "close" || method === "clearCachedCredentials") continue;
      for (const bad of BAD) {
        const args = arity === 0 ? [bad] : arity === 1 ? [bad] : [bad, bad];
        const outcome = await settle(terminal, method, args);
        if (arity > 0 && outcome.error?.reason === "INVALID_REQUEST") {
          assert.equal(typeof outcome.error.argument, "string");
          assert.ok(outcome.error.message.startsWith(outcome.error.argument), outcome.error.message);
        }
      }
    }
    for (const getter of GETTERS) for (const bad of BAD) assert.doesNotThrow(() => terminal[getter](bad));
  } finally {
    await settle(terminal, "close", []);
  }
});

test("each bad argument is refused with INVALID_REQUEST naming it, before anything is sent", async () => {
  const terminal = ReaderGateway.create({ url: URL, onFetchConnectionToken: async () => "pst_1" });
  try {
    const cases = [
      [() => terminal.collectPaymentMethod(), "collectPaymentMethod's clientSecret", /not undefined/],
      [() => terminal.collectPaymentMethod(42), "collectPaymentMethod's clientSecret", /client secret/],
      [() => terminal.collectPaymentMethod({ id: "pi_1", amount: 2 ** 60, currency: "usd" }), "collectPaymentMethod's clientSecret.amount", /0 to 9007199254740991/],
      [() => terminal.collectPaymentMethod({ id: "pi_1", amount: 10n }), "collectPaymentMethod's clientSecret.amount", /not 10n/],
      [() => terminal.collectPaymentMethod("pi_1", { config_override: { skip_tipping: "no" } }), "options.config_override.skip_tipping", /true or false/],
      [() => terminal.processPayment(undefined), "processPayment's paymentIntent", /not undefined/],
      [() => terminal.connectReader(), "connectReader's reader", /from discoverReaders/],
      [() => terminal.connectReader({ id: "tmr_1" }, { fail_if_in_use: 1 }), "options.fail_if_in_use", /true or false/],
      [() => terminal.setReaderDisplay({ type: "text" }), "setReaderDisplay's display.type", /must be "cart"/],
      [() => terminal.setReaderDisplay({ type: "cart", cart: { line_items: [{ description: "a", amount: 1.5 }], total: 2, currency: "usd" } }), "setReaderDisplay's display.cart.line_items[0].amount", /whole number/],
      [() => terminal.discoverReaders({ location: 5 }), "config.location", /string/],
      [() => terminal.discoverReaders({ method: "bluetooth_scan" }), "config.method", /"internet"/],
    ];
    for (const [call, argument, message] of cases) {
      const { error } = await call();
      assert.equal(error?.reason, "INVALID_REQUEST", `${argument}: ${JSON.stringify(error)}`);
      assert.equal(error.code, "INVALID_ARGUMENT");
      assert.equal(error.argument, argument);
      assert.match(error.message, message);
      assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(error))), ["code", "reason", "message", "argument"]);
    }
    // Nothing went out: no session was opened for them.
    assert.equal(terminal.getSession(), null);
    // An unbound method works too.
    const { collectPaymentMethod } = terminal;
    assert.equal((await collectPaymentMethod()).error.argument, "collectPaymentMethod's clientSecret");
  } finally {
    await terminal.close();
  }
});

test("create with bad options never throws: every call resolves with the error naming the option", async () => {
  for (const [options, argument] of [
    [undefined, "ReaderGateway.create's options"], [null, "ReaderGateway.create's options"], ["x", "ReaderGateway.create's options"],
    [{}, "onFetchConnectionToken"], [{ onFetchConnectionToken: "tok" }, "onFetchConnectionToken"],
    [{ onFetchConnectionToken: async () => "t", url: "https://not-a-websocket" }, "url"],
    [{ onFetchConnectionToken: async () => "t", url: URL, onUnexpectedReaderDisconnect: 5 }, "onUnexpectedReaderDisconnect"],
    [{ onFetchConnectionToken: async () => "t", url: URL, laneLabel: 3 }, "laneLabel"],
    [hostile, "ReaderGateway.create's options"],
  ]) {
    let terminal;
    assert.doesNotThrow(() => { terminal = ReaderGateway.create(options); });
    for (const method of Object.keys(METHODS)) {
      const { error } = await settle(terminal, method, []);
      assert.equal(error.argument, argument, `${method} with ${label(options)}`);
    }
    assert.equal(terminal.getConnectionStatus(), "not_connected");
  }
});

test("a token function that throws or answers nothing is said as such", async () => {
  for (const [fetchToken, reason, message] of [
    [async () => { throw new Error("backend down"); }, "CONNECTION_TOKEN_INVALID", /onFetchConnectionToken failed: backend down/],
    [async () => undefined, "INVALID_REQUEST", /onFetchConnectionToken: must resolve to the connection token/],
    [async () => 42, "INVALID_REQUEST", /not number 42/],
  ]) {
    const terminal = ReaderGateway.create({ url: URL, onFetchConnectionToken: fetchToken });
    const { error } = await settle(terminal, "discoverReaders", []);
    assert.equal(error.reason, reason);
    assert.match(error.message, message);
    await terminal.close();
  }
});

test("a callback that throws does not break the library", async () => {
  const terminal = ReaderGateway.create({
    url: URL, onFetchConnectionToken: async () => "pst_1",
    onConnectionStatusChange: () => { throw new Error("page bug"); },
  });
  const logged = [];
  const original = console.error;
  console.error = (...args) => logged.push(args.join(" "));
  try {
    const { discoveredReaders } = await terminal.discoverReaders({ location: "tml_1" });
    const connected = await terminal.connectReader(discoveredReaders[0]);
    assert.equal(connected.error, undefined);
    assert.equal(terminal.getConnectionStatus(), "connected");
    assert.ok(logged.some((line) => line.includes("onConnectionStatusChange threw")), logged.join("\n"));
  } finally {
    await terminal.close();
    console.error = original;
  }
});
