// The browser library against a real reader-gateway and reader-sim, over the WebSocket
// binding on the gateway's TLS port: the library itself is imported from the gateway's
// own URL (/readergateway/v1/js/), then two lanes and an admin use it. Run by
// run_live_tests.py (`make js-live-test`), which starts the gateway and the simulator.
import { test } from "node:test";
import assert from "node:assert/strict";

const { ReaderGateway, AdminClient, GatewayConnection } = await import(process.env.GATEWAY_JS);
const url = process.env.GATEWAY_WS_URL;
const secretKey = process.env.GATEWAY_SECRET_KEY;
const registrationCode = process.env.READER_REGISTRATION_CODE;

/** Resolves with the first value `probe` returns that is not undefined, checking again after each `intervalMs`, failing after `timeoutMs`. */
async function eventually(what, probe, { timeoutMs = 30000, intervalMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A promise and its resolver, for an event that arrives later. */
function signal() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

test("lanes in a browser library: discover, connect, failIfInUse, takeover events, commands", async (t) => {
  const admin = new AdminClient(new GatewayConnection(url), secretKey);
  t.after(() => admin.close());
  const { location } = await admin.call("CreateLocation", { displayName: "WebSocket store" });
  const { reader } = await admin.call("RegisterReader", { registrationCode, label: "Counter 1", locationId: location.id });
  assert.equal(reader.locationId, location.id);
  const online = await eventually("the reader online", async () => {
    const { reader: current } = await admin.call("GetReader", { readerId: reader.id });
    return current.networkStatus === 1 || current.networkStatus === "ONLINE" ? current : undefined;
  });
  assert.equal(online.id, reader.id);

  const token = async () => (await admin.call("CreateConnectionToken", { locationId: location.id, ttlMs: 600000n })).secret;
  const lost = { a: [], b: [] };
  const replacedA = signal();
  const replacedB = signal();
  // Lane A gives no url: the library connects to the gateway it was imported from.
  const laneA = ReaderGateway.create({
    onFetchConnectionToken: token, posDeviceId: "pos-a", laneLabel: "Lane A",
    onUnexpectedReaderDisconnect: (event) => { lost.a.push(event); if (event.reason === "replaced") replacedA.resolve(event); },
  });
  const laneB = ReaderGateway.create({
    url, onFetchConnectionToken: token, posDeviceId: "pos-b", laneLabel: "Lane B",
    onUnexpectedReaderDisconnect: (event) => { lost.b.push(event); if (event.reason === "replaced") replacedB.resolve(event); },
  });
  t.after(async () => { await laneA.close(); await laneB.close(); });

  const discoveredA = await laneA.discoverReaders({ location: location.id });
  assert.equal(discoveredA.error, undefined, `${discoveredA.error}`);
  const readerA = discoveredA.discoveredReaders.find((r) => r.id === reader.id);
  assert.ok(readerA, "lane A discovers the registered reader");
  assert.equal(readerA.object, "terminal.reader");
  assert.equal(readerA.serial_number, "WSLIVE-1");
  assert.equal(readerA.device_type, "simulated_wisepos_e");
  assert.equal(readerA.status, "online");
  assert.equal(readerA.location, location.id);

  // Cell 1: failIfInUse on an idle, free reader: connected.
  const first = await laneA.connectReader(readerA, { fail_if_in_use: true });
  assert.equal(first.error, undefined, `${first.error}`);
  assert.equal(laneA.getConnectionStatus(), "connected");

  // A command through the reader: the cart on its display.
  const display = await laneA.setReaderDisplay({ type: "cart", cart: { line_items: [{ description: "Latte", amount: 450, quantity: 1 }], tax: 45, total: 495, currency: "usd" } });
  assert.equal(display.error, undefined, `${display.error}`);

  // Cell 2: failIfInUse on an idle reader another lane holds: taken, and the lane that had
  // it hears at once who took it.
  const readerB = (await laneB.discoverReaders({ location: location.id })).discoveredReaders.find((r) => r.id === reader.id);
  const second = await laneB.connectReader(readerB, { fail_if_in_use: true });
  assert.equal(second.error, undefined, `${second.error}`);
  const takenFromA = await replacedA.promise;
  assert.deepEqual(takenFromA.taken_by, { lane_label: "Lane B", pos_device_id: "pos-b" });
  assert.equal(takenFromA.error.reason, "READER_CONNECTED_TO_ANOTHER_SESSION");

  // Mid-transaction: lane B collects (the simulator holds the collect open).
  const collecting = laneB.collectPaymentMethod({ id: "pi_ws_1", amount: 495, currency: "usd" });
  await eventually("the reader busy with lane B's collect", async () => {
    const { reader: current } = await admin.call("GetReader", { readerId: reader.id });
    // readergateway.v1.ReaderActivity.COLLECTING (enums decode to their numbers): waiting for
    // "not idle" passed at once once GetReader reported IDLE (1), before the collect began.
    return current.activity === 2 ? current : undefined;
  });

  // Cell 3: failIfInUse on a reader mid-transaction: READER_BUSY, and lane B keeps it.
  const again = (await laneA.discoverReaders({ location: location.id })).discoveredReaders.find((r) => r.id === reader.id);
  const busy = await laneA.connectReader(again, { fail_if_in_use: true });
  assert.equal(busy.error?.reason, "READER_BUSY", `${busy.error}`);
  assert.equal(lost.b.length, 0, "lane B keeps the reader");

  // Cell 4: without failIfInUse the reader is taken even mid-transaction; lane B hears who
  // took it and its collect ends.
  const taken = await laneA.connectReader(again, { fail_if_in_use: false });
  assert.equal(taken.error, undefined, `${taken.error}`);
  const takenFromB = await replacedB.promise;
  assert.equal(takenFromB.taken_by.lane_label, "Lane A");
  const collected = await collecting;
  assert.ok(collected.error, "lane B's collect ends with an error once the reader is taken");

  // Lane A commands the reader it took back.
  const cleared = await laneA.clearReaderDisplay();
  assert.equal(cleared.error, undefined, `${cleared.error}`);
  const released = await laneA.disconnectReader();
  assert.equal(released.error, undefined, `${released.error}`);

  // The discovery filter and easyConnect: lane B finds the reader by its serial alone, nothing
  // for a serial the account does not have, and takes the free reader in one call.
  const bySerial = await laneB.discoverReaders({ location: location.id, discovery_filter: { serial_number: "WSLIVE-1" } });
  assert.equal(bySerial.error, undefined, `${bySerial.error}`);
  assert.deepEqual(bySerial.discoveredReaders.map((r) => r.id), [reader.id]);
  const unknown = await laneB.discoverReaders({ location: location.id, discovery_filter: { serial_number: "WSLIVE-404" } });
  assert.deepEqual(unknown.discoveredReaders, []);
  const malformed = await laneB.discoverReaders({ location: location.id, discovery_filter: { serial_number: "not a serial" } });
  assert.equal(malformed.error?.code, "INVALID_ARGUMENT", `${malformed.error}`);
  assert.match(malformed.error.message, /is not a serial number/);
  const nothing = await laneB.easyConnect({ location: location.id, discovery_filter: { serial_number: "WSLIVE-404" }, fail_if_in_use: true });
  assert.equal(nothing.error?.reason, "READER_NOT_FOUND", `${nothing.error}`);
  assert.equal(laneB.getConnectionStatus(), "not_connected");
  const easy = await laneB.easyConnect({ location: location.id, discovery_filter: { reader_id: reader.id }, fail_if_in_use: true });
  assert.equal(easy.error, undefined, `${easy.error}`);
  assert.equal(easy.reader.id, reader.id);
  assert.equal(easy.replaced_other_session, false);
  assert.equal(laneB.getConnectionStatus(), "connected");
  const shown = await laneB.setReaderDisplay({ type: "cart", cart: { line_items: [{ description: "Tea", amount: 300, quantity: 1 }], tax: 0, total: 300, currency: "usd" } });
  assert.equal(shown.error, undefined, `${shown.error}`);
});
