// The Stripe-shaped Terminal against the fake gateway: discovery, connect with
// fail_if_in_use, collect and its cancel, process, the display, a takeover by another lane,
// and a session that survives a dropped connection with its reader. Every object is checked
// against Terminal JS's shapes (terminal-js-shapes.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ReaderGateway } from "../../../Sources/GatewayWebClient/readergateway.js";
import { assertShape, matches, SHAPES } from "./shapes.mjs";

const URL = process.env.GATEWAY_WS_URL;

function makeTerminal(extra = {}) {
  return ReaderGateway.create({
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

test("discoverReaders opens the session and answers Terminal JS readers tagged with their discovery", () => withTerminal({}, async (terminal) => {
  assert.equal(terminal.getConnectionStatus(), "not_connected");
  assert.equal(terminal.getPaymentStatus(), "not_ready");
  const { discoveredReaders } = await terminal.discoverReaders({ location: "tml_1" });
  assert.deepEqual(discoveredReaders.map((reader) => reader.id), ["tmr_1", "tmr_busy"]);
  for (const reader of discoveredReaders) assertShape("reader", reader);
  assert.deepEqual(
    { ...discoveredReaders[0], metadata: undefined },
    {
      object: "terminal.reader", id: "tmr_1", label: "Front", serial_number: "WSC-1", device_type: "bbpos_wisepos_e",
      device_sw_version: "2.31.1", ip_address: "10.0.0.7", location: "tml_1", status: "online", last_seen_at: 1764300000000,
      livemode: false, metadata: undefined, action: null, activity: "idle", battery_level: 0.5, simulated: false,
      available_update: null, discovery_id: "disc_1",
    },
  );
  assert.equal(discoveredReaders[1].activity, "collecting");
  assert.equal(discoveredReaders[1].device_type, null);
  assert.match(terminal.getSession().session_id, /^ses_st_/);
  assert.equal(terminal.getGatewayStatus(), "connected");
  const filtered = await terminal.discoverReaders({ location: "tml_1", device_type: "bbpos_wisepos_e" });
  assert.deepEqual(filtered.discoveredReaders.map((reader) => reader.id), ["tmr_1"]);
}));

test("connectReader: connected, and fail_if_in_use refuses a busy reader with READER_BUSY", () => withTerminal({}, async (terminal) => {
  const statuses = [];
  terminal.options.onConnectionStatusChange = ({ status }) => statuses.push(status);
  const { discoveredReaders } = await terminal.discoverReaders({ location: "tml_1" });
  const busy = await terminal.connectReader(discoveredReaders[1], { fail_if_in_use: true });
  assert.equal(busy.error.reason, "READER_BUSY");
  assert.equal(busy.error.code, "ABORTED");
  assertShape("error", busy.error);
  assert.equal(terminal.getConnectionStatus(), "not_connected");
  const taken = await terminal.connectReader(discoveredReaders[1], { fail_if_in_use: false });
  assert.equal(taken.replaced_other_session, true);
  assert.equal(taken.generation, 3);
  assertShape("reader", taken.reader);
  assert.equal(terminal.getConnectedReader().id, "tmr_busy");
  assert.equal(terminal.getPaymentStatus(), "ready");
  assert.deepEqual(statuses, ["connecting", "not_connected", "connecting", "connected"]);
}));

test("discoverReaders with a discovery_filter sends it and answers the reader it names", () => withTerminal({}, async (terminal) => {
  const bySerial = await terminal.discoverReaders({ location: "tml_1", discovery_filter: { serial_number: "WSC-1" } });
  assert.deepEqual(bySerial.discoveredReaders.map((reader) => reader.id), ["tmr_1"]);
  const byId = await terminal.discoverReaders({ location: "tml_1", discovery_filter: { reader_id: "tmr_busy" } });
  assert.deepEqual(byId.discoveredReaders.map((reader) => reader.id), ["tmr_busy"]);
  const none = await terminal.discoverReaders({ location: "tml_1", discovery_filter: { serial_number: "WSC-404" } });
  assert.deepEqual(none.discoveredReaders, []);
  const both = await terminal.discoverReaders({ discovery_filter: { reader_id: "tmr_1", serial_number: "WSC-1" } });
  assert.equal(both.error.reason, "INVALID_REQUEST");
  assert.equal(both.error.argument, "config.discovery_filter");
  assert.match(both.error.message, /set exactly one/);
  // A replica that ignores the filter (an older release) lists the location: the library keeps the reader named.
  const old = await terminal.discoverReaders({ location: "tml_old", discovery_filter: { serial_number: "WSC-1" } });
  assert.deepEqual(old.discoveredReaders.map((reader) => reader.id), ["tmr_1"]);
  const empty = await terminal.discoverReaders({ discovery_filter: {} });
  assert.equal(empty.error.code, "INVALID_ARGUMENT");
}));

test("easyConnect: connected in one call, READER_BUSY with fail_if_in_use, READER_NOT_FOUND for nothing", () => withTerminal({}, async (terminal) => {
  const statuses = [];
  terminal.options.onConnectionStatusChange = ({ status }) => statuses.push(status);
  const missing = await terminal.easyConnect({ location: "tml_1" });
  assert.equal(missing.error.argument, "config.discovery_filter");
  const nothing = await terminal.easyConnect({ location: "tml_1", discovery_filter: { serial_number: "WSC-404" } });
  assert.equal(nothing.error.reason, "READER_NOT_FOUND");
  assert.equal(nothing.error.code, "NOT_FOUND");
  const busy = await terminal.easyConnect({ location: "tml_1", discovery_filter: { reader_id: "tmr_busy" }, fail_if_in_use: true });
  assert.equal(busy.error.reason, "READER_BUSY");
  assert.equal(terminal.getConnectionStatus(), "not_connected");
  const taken = await terminal.easyConnect({ location: "tml_1", discovery_filter: { serial_number: "WSC-BUSY" } });
  assert.equal(taken.error, undefined);
  assert.equal(taken.replaced_other_session, true);
  assert.equal(taken.generation, 4);
  assert.equal(taken.discovery_id, "disc_2");
  assert.equal(taken.required_update_failure, null);
  assertShape("reader", taken.reader);
  assert.equal(taken.reader.discovery_id, "disc_2");
  assert.equal(terminal.getConnectedReader().id, "tmr_busy");
  assert.equal(terminal.getPaymentStatus(), "ready");
  assert.deepEqual(statuses, ["connecting", "not_connected", "connecting", "not_connected", "connecting", "connected"]);
}));

test("a reader from another discovery is refused with STALE_DISCOVERY", () => withTerminal({}, async (terminal) => {
  await terminal.discoverReaders({ location: "tml_1" });
  const { error } = await terminal.connectReader({ id: "tmr_1", discovery_id: "disc_0" });
  assert.equal(error.reason, "STALE_DISCOVERY");
}));

test("a bad connection token surfaces as CONNECTION_TOKEN_INVALID", () =>
  withTerminal({ onFetchConnectionToken: async () => "pst_bad" }, async (terminal) => {
    const { error } = await terminal.discoverReaders({ location: "tml_1" });
    assert.equal(error.reason, "CONNECTION_TOKEN_INVALID");
    assert.equal(error.code, "UNAUTHENTICATED");
  }));

test("collectPaymentMethod(clientSecret) then processPayment: Terminal JS's payment intents; a collect cancelled by cancelCollectPaymentMethod", () => withTerminal({}, async (terminal) => {
  const statuses = [];
  terminal.options.onPaymentStatusChange = ({ status }) => statuses.push(status);
  await connected(terminal);
  const collected = await terminal.collectPaymentMethod("pi_ok_secret_abc");
  assert.equal(collected.error, undefined);
  assertShape("payment_intent", collected.paymentIntent);
  assertShape("payment_method", collected.paymentIntent.sdk_payment_details);
  assert.equal(collected.paymentIntent.id, "pi_ok");
  assert.equal(collected.paymentIntent.client_secret, "pi_ok_secret_abc");
  assert.equal(collected.paymentIntent.status, "requires_confirmation");
  assert.equal(collected.paymentIntent.payment_method, "pm_1");
  assert.equal(collected.paymentIntent.sdk_payment_details.card_present.last4, "4242");
  const processed = await terminal.processPayment(collected.paymentIntent);
  assert.equal(processed.error, undefined);
  assertShape("payment_intent", processed.paymentIntent);
  assert.equal(processed.paymentIntent.status, "succeeded");
  assert.equal(processed.paymentIntent.amount_received, 1999);
  assert.equal(processed.paymentIntent.sdk_payment_details.card_present.brand, "visa");
  assert.doesNotThrow(() => JSON.stringify(processed));
  assert.deepEqual(statuses, ["ready", "waiting_for_input", "ready", "processing", "ready"]);
  for (const status of statuses) assert.ok(matches(SHAPES.payment_status, status));
  // An amount the wire holds but a JS number cannot: refused, not rounded.
  const huge = await terminal.processPayment({ id: "pi_huge" });
  assert.equal(huge.error.reason, "MALFORMED_MESSAGE");
  assert.match(huge.error.message, /amount_received is 1152921504606846976, beyond Number.MAX_SAFE_INTEGER/);
  const pending = terminal.collectPaymentMethod({ id: "pi_wait", amount: 500, currency: "usd" });
  // The cancel is sent after the collect's CALL_START on the same connection (calls keep their order).
  const cancel = await terminal.cancelCollectPaymentMethod();
  assert.deepEqual(cancel, {});
  const { error } = await pending;
  assert.equal(error.reason, "COMMAND_CANCELED");
  assert.equal(error.decline_code, undefined);
}));

test("a declined card: collectPaymentMethod resolves with CARD_DECLINED and Terminal JS's decline_code; the next collect succeeds", () => withTerminal({}, async (terminal) => {
  await connected(terminal);
  const declined = await terminal.collectPaymentMethod({ id: "pi_declined", amount: 500, currency: "usd" });
  assert.equal(declined.paymentIntent, undefined);
  assertShape("error", declined.error);
  assert.equal(declined.error.code, "FAILED_PRECONDITION");
  assert.equal(declined.error.reason, "CARD_DECLINED");
  assert.equal(declined.error.decline_code, "insufficient_funds");
  assert.equal(declined.error.isRetryable, false);
  assert.deepEqual(JSON.parse(JSON.stringify(declined.error)), {
    code: "FAILED_PRECONDITION", reason: "CARD_DECLINED", message: "the card was declined (insufficient_funds); ask for another card", decline_code: "insufficient_funds",
  });
  const next = await terminal.collectPaymentMethod("pi_ok");
  assert.equal(next.error, undefined);
  assert.equal(next.paymentIntent.id, "pi_ok");
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
    await terminal.setReaderDisplay({ type: "cart", cart: { currency: "take", total: 0 } });
    const event = await lost;
    assertShape("disconnect_event", event);
    assert.equal(event.reason, "replaced");
    assert.deepEqual(event.taken_by, { lane_label: "Lane 2", pos_device_id: "pos-2" });
    assert.equal(event.reader.id, reader.id);
    assert.equal(event.error.reason, "READER_CONNECTED_TO_ANOTHER_SESSION");
    assert.match(event.message, /Lane 2 took the reader/);
    assert.match(JSON.stringify(event.error), /"message":"Lane 2 took the reader"/);
    assert.equal(terminal.getConnectionStatus(), "not_connected");
    assert.equal(terminal.getPaymentStatus(), "not_ready");
    assert.equal(terminal.getConnectedReader(), null);
    // One reason for one loss: the next command says what the event said.
    const next = await terminal.collectPaymentMethod("pi_ok");
    assert.equal(next.error, event.error);
  });
});

test("after a dropped connection the session resumes with its token and keeps its reader", async () => {
  let resolveResumed;
  const resumed = new Promise((resolve) => { resolveResumed = resolve; });
  const lost = [];
  await withTerminal({ onSessionResumed: resolveResumed, onUnexpectedReaderDisconnect: (event) => lost.push(event) }, async (terminal) => {
    const reader = await connected(terminal);
    const token = terminal.session.sessionToken;
    // The gateway cuts the connection under this call; it was certainly not processed
    // (CONNECTION_LOST before any answer), so the client sends it again on a new connection.
    const display = await terminal.setReaderDisplay({ type: "cart", cart: { currency: "blip", total: 0 } });
    assert.deepEqual(display, {});
    const { session } = await resumed;
    assert.equal(session.resumed, true);
    assert.equal(terminal.session.sessionToken, token, "resumed with its own token");
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
