// The Stripe-shaped Terminal against the fake gateway: discovery, connect with
// fail_if_in_use, collect and its cancel, the display, a takeover by another lane, and a
// session that survives a dropped connection with its reader.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Terminal } from "../../../Sources/GatewayWebClient/readergateway.js";

const URL = process.env.GATEWAY_WS_URL;

function makeTerminal(extra = {}) {
  return Terminal.create({
    url: URL,
    onFetchConnectionToken: async () => "pst_1",
    posDeviceId: "pos-1",
    laneLabel: "Lane 1",
    ...extra,
  });
}

async function withTerminal(extra, body) {
  const terminal = makeTerminal(extra);
  try {
    return await body(terminal);
  } finally {
    await terminal.close();
  }
}

async function connected(terminal) {
  const { discoveredReaders, error } = await terminal.discoverReaders({ location: "tml_1" });
  assert.equal(error, undefined);
  const result = await terminal.connectReader(discoveredReaders[0], { fail_if_in_use: true });
  assert.equal(result.error, undefined);
  return result.reader;
}

test("discoverReaders opens the session and tags readers with their discovery", () => withTerminal({}, async (terminal) => {
  assert.equal(terminal.getConnectionStatus(), "not_connected");
  const { discoveredReaders } = await terminal.discoverReaders({ location: "tml_1" });
  assert.deepEqual(discoveredReaders.map((reader) => reader.id), ["tmr_1", "tmr_busy"]);
  assert.equal(discoveredReaders[0].discoveryId, "disc_1");
  assert.equal(discoveredReaders[0].locationId, "tml_1");
  assert.match(terminal.getSession().sessionToken, /^st_/);
  assert.equal(terminal.getGatewayStatus(), "connected");
}));

test("connectReader: connected, and fail_if_in_use refuses a busy reader with READER_BUSY", () => withTerminal({}, async (terminal) => {
  const statuses = [];
  terminal.options.onConnectionStatusChange = ({ status }) => statuses.push(status);
  const { discoveredReaders } = await terminal.discoverReaders({ location: "tml_1" });
  const busy = await terminal.connectReader(discoveredReaders[1], { fail_if_in_use: true });
  assert.equal(busy.error.reason, "READER_BUSY");
  assert.equal(busy.error.code, "ABORTED");
  assert.equal(terminal.getConnectionStatus(), "not_connected");
  const taken = await terminal.connectReader(discoveredReaders[1], { fail_if_in_use: false });
  assert.equal(taken.replacedOtherSession, true);
  assert.equal(terminal.getConnectedReader().id, "tmr_busy");
  assert.deepEqual(statuses, ["connecting", "not_connected", "connecting", "connected"]);
}));

test("a reader from another discovery is refused with STALE_DISCOVERY", () => withTerminal({}, async (terminal) => {
  await terminal.discoverReaders({ location: "tml_1" });
  const { error } = await terminal.connectReader({ id: "tmr_1", discoveryId: "disc_0" });
  assert.equal(error.reason, "STALE_DISCOVERY");
}));

test("a bad connection token surfaces as CONNECTION_TOKEN_INVALID", () =>
  withTerminal({ onFetchConnectionToken: async () => "pst_bad" }, async (terminal) => {
    const { error } = await terminal.discoverReaders({ location: "tml_1" });
    assert.equal(error.reason, "CONNECTION_TOKEN_INVALID");
    assert.equal(error.code, "UNAUTHENTICATED");
  }));

test("collectPaymentMethod: collected at once, or cancelled by cancelCollectPaymentMethod", () => withTerminal({}, async (terminal) => {
  await connected(terminal);
  const collected = await terminal.collectPaymentMethod({ paymentIntentId: "pi_ok", amount: 1999, currency: "usd" });
  assert.equal(collected.paymentIntent.id, "pi_ok");
  assert.equal(collected.paymentIntent.paymentMethod.last4, "4242");
  const pending = terminal.collectPaymentMethod({ paymentIntentId: "pi_wait", amount: 500, currency: "usd" });
  // The cancel is sent after the collect's CALL_START on the same connection (calls keep their order).
  const cancel = await terminal.cancelCollectPaymentMethod();
  assert.deepEqual(cancel, {});
  const { error } = await pending;
  assert.equal(error.reason, "COMMAND_CANCELED");
}));

test("setReaderDisplay takes Stripe's cart shape; clearReaderDisplay clears it", () => withTerminal({}, async (terminal) => {
  await connected(terminal);
  const shown = await terminal.setReaderDisplay({
    type: "cart",
    cart: { line_items: [{ description: "Latte", amount: 450, quantity: 2 }], tax: 90, total: 990, currency: "usd" },
  });
  assert.deepEqual(shown, {});
  assert.deepEqual(await terminal.clearReaderDisplay(), {});
}));

test("another lane takes the reader: onUnexpectedReaderDisconnect says who", async () => {
  let resolveLost;
  const lost = new Promise((resolve) => { resolveLost = resolve; });
  await withTerminal({ onUnexpectedReaderDisconnect: resolveLost }, async (terminal) => {
    const reader = await connected(terminal);
    await terminal.setReaderDisplay({ cart: { currency: "take" } });
    const event = await lost;
    assert.equal(event.reason, "REPLACED");
    assert.deepEqual(event.takenBy, { laneLabel: "Lane 2", posDeviceId: "pos-2" });
    assert.equal(event.reader.id, reader.id);
    assert.equal(event.error.reason, "READER_CONNECTED_TO_ANOTHER_SESSION");
    assert.match(event.message, /Lane 2 took the reader/);
    assert.equal(terminal.getConnectionStatus(), "not_connected");
    assert.equal(terminal.getConnectedReader(), null);
  });
});

test("after a dropped connection the session resumes with its token and keeps its reader", async () => {
  let resolveResumed;
  const resumed = new Promise((resolve) => { resolveResumed = resolve; });
  const lost = [];
  await withTerminal({ onSessionResumed: resolveResumed, onUnexpectedReaderDisconnect: (event) => lost.push(event) }, async (terminal) => {
    const reader = await connected(terminal);
    const token = terminal.getSession().sessionToken;
    // The gateway cuts the connection under this call; it was certainly not processed
    // (CONNECTION_LOST before any answer), so the client sends it again on a new connection.
    const display = await terminal.setReaderDisplay({ cart: { currency: "blip" } });
    assert.deepEqual(display, {});
    const { session } = await resumed;
    assert.equal(session.resumed, true);
    assert.equal(session.sessionToken, token);
    assert.equal(terminal.getConnectedReader().id, reader.id);
    assert.equal(terminal.getConnectionStatus(), "connected");
    assert.deepEqual(lost, []);
    assert.deepEqual(await terminal.clearReaderDisplay(), {});
  });
});

test("disconnectReader gives the reader back without an unexpected-disconnect callback", () => {
  const lost = [];
  return withTerminal({ onUnexpectedReaderDisconnect: (event) => lost.push(event) }, async (terminal) => {
    await connected(terminal);
    assert.deepEqual(await terminal.disconnectReader(), {});
    assert.equal(terminal.getConnectedReader(), null);
    assert.equal(terminal.getConnectionStatus(), "not_connected");
    assert.deepEqual(lost, []);
  });
});
