// The channel against the fake gateway: calls, errors, deadlines, cancellation, keepalive,
// GOAWAY and a gateway that breaks the binding.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Channel } from "../../../Sources/GatewayWebClient/channel.js";
import { RPCError } from "../../../Sources/GatewayWebClient/errors.js";
import { Sdk } from "../../../Sources/GatewayWebClient/generated/readergateway/v1/sdk.js";
import { AdminClient } from "../../../Sources/GatewayWebClient/admin.js";
import { GatewayConnection } from "../../../Sources/GatewayWebClient/connection.js";

const URL = process.env.GATEWAY_WS_URL;
const text = { encode: (value) => new TextEncoder().encode(JSON.stringify(value ?? {})), decode: (bytes) => JSON.parse(new TextDecoder().decode(bytes)) };
const Control = {
  Slow: { path: "/readergateway.testing.Control/Slow", requestType: text, responseType: text },
  Log: { path: "/readergateway.testing.Control/Log", requestType: text, responseType: text },
  Missing: { path: "/readergateway.testing.Control/Missing", requestType: text, responseType: text },
  Stream: { path: "/readergateway.testing.Control/Stream", requestType: text, responseType: { decode: (bytes) => bytes } },
  Hold: { path: "/readergateway.testing.Control/Hold", requestType: text, responseType: text },
};

async function withChannel(body, url = URL, options = {}) {
  const channel = await Channel.connect(url, options);
  try {
    return await body(channel);
  } finally {
    channel.close();
  }
}

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("the call succeeded");
}

test("a unary call gets its response", () => withChannel(async (channel) => {
  const session = await channel.unary(Sdk.OpenSession, { connectionToken: "pst_1", posDeviceId: "pos-1", laneLabel: "Lane 1" });
  assert.match(session.sessionToken, /^st_/);
  assert.equal(session.leaseMs, 30000n);
}));

test("a failed call rejects with the gateway's code and reason", () => withChannel(async (channel) => {
  const error = await rejection(channel.unary(Sdk.OpenSession, { connectionToken: "pst_bad" }));
  assert.ok(error instanceof RPCError);
  assert.equal(error.code, "UNAUTHENTICATED");
  assert.equal(error.reason, "CONNECTION_TOKEN_INVALID");
  assert.match(error.message, /fetch a new one/);
  const missing = await rejection(channel.unary(Control.Missing, {}));
  assert.equal(missing.reason, "METHOD_NOT_FOUND");
}));

test("calls run side by side on one connection", () => withChannel(async (channel) => {
  const sessions = await Promise.all([1, 2, 3, 4, 5].map((lane) => channel.unary(Sdk.OpenSession, { connectionToken: "pst_1", laneLabel: `Lane ${lane}` })));
  assert.equal(new Set(sessions.map((session) => session.sessionToken)).size, 5);
}));

test("a deadline ends the call with DEADLINE_EXCEEDED and tells the gateway with CANCEL", () => withChannel(async (channel) => {
  const error = await rejection(channel.unary(Control.Slow, {}, { timeoutMs: 50 }));
  assert.equal(error.code, "DEADLINE_EXCEEDED");
  assert.equal(error.reason, "DEADLINE_EXCEEDED");
  const log = await channel.unary(Control.Log, {});
  assert.ok(log.cancels.some((cancel) => cancel.method === Control.Slow.path && cancel.reason === 111));
}));

test("aborting the signal cancels the call", () => withChannel(async (channel) => {
  const controller = new AbortController();
  const call = channel.unary(Control.Slow, {}, { signal: controller.signal });
  controller.abort();
  const error = await rejection(call);
  assert.equal(error.code, "CANCELLED");
  assert.equal(error.reason, "CANCELLED_BY_PEER");
  const log = await channel.unary(Control.Log, {});
  assert.ok(log.cancels.some((cancel) => cancel.method === Control.Slow.path && cancel.reason === 112));
  const already = await rejection(channel.unary(Control.Slow, {}, { signal: controller.signal }));
  assert.equal(already.reason, "CANCELLED_BY_PEER");
}));

test("an unanswered PING ends the connection with KEEPALIVE_TIMEOUT", () =>
  withChannel(async (channel) => {
    const error = await rejection(channel.unary(Control.Slow, {}));
    assert.equal(error.code, "UNAVAILABLE");
    assert.equal(error.reason, "KEEPALIVE_TIMEOUT");
    assert.equal(error.isRetryable, true);
    assert.equal(channel.isUsable, false);
  }, `${URL}?scenario=silent-pings`, { keepaliveTimeMs: 50, keepaliveTimeoutMs: 50 }));

test("answered PINGs keep a quiet connection alive", () =>
  withChannel(async (channel) => {
    let settled = false;
    const slow = channel.unary(Control.Slow, {}).catch((error) => error).finally(() => { settled = true; });
    let answered = 0;
    await new Promise((resolve) => channel.onKeepalive(() => { if (++answered === 3) resolve(); }));
    assert.equal(settled, false); // the quiet call is still open after three keepalive rounds
    assert.equal(channel.isUsable, true);
    channel.close();
    assert.equal((await slow).reason, "CANCELLED_BY_PEER");
  }, URL, { keepaliveTimeMs: 20, keepaliveTimeoutMs: 5000 }));

test("a message that is not one frame is a protocol error that ends the connection", async () => {
  const channel = await Channel.connect(`${URL}?scenario=garbage`);
  const error = await new Promise((resolve) => channel.onClose(resolve));
  assert.equal(error.reason, "PROTOCOL_ERROR");
  assert.equal(channel.isUsable, false);
});

test("GOAWAY: the call it names finishes, new calls are refused, the connection then closes", () => withChannel(async (channel) => {
  const session = await channel.unary(Sdk.OpenSession, { connectionToken: "pst_1" });
  const goAway = new Promise((resolve) => channel.onGoAway(resolve));
  const closed = new Promise((resolve) => channel.onClose(resolve));
  await channel.unary(Sdk.SetReaderDisplay, { sessionToken: session.sessionToken, cart: { currency: "goaway" } });
  assert.equal((await goAway).status.reason, 113);
  const refused = await rejection(channel.unary(Sdk.Heartbeat, { sessionToken: session.sessionToken }));
  assert.equal(refused.reason, "GOING_AWAY");
  assert.equal(refused.isRetryable, true);
  assert.equal((await closed).reason, "GOING_AWAY");
}));

test("a GatewayConnection moves to a new channel after GOAWAY", async () => {
  const connection = new GatewayConnection(URL);
  try {
    const session = await connection.unary(Sdk.OpenSession, { connectionToken: "pst_1" });
    const first = await connection.channel();
    await connection.unary(Sdk.SetReaderDisplay, { sessionToken: session.sessionToken, cart: { currency: "goaway" } });
    await connection.unary(Sdk.Heartbeat, { sessionToken: session.sessionToken });
    assert.notEqual(await connection.channel(), first);
  } finally {
    connection.close();
  }
});

test("a refused upgrade rejects with CONNECTION_LOST and says what to check", async () => {
  const error = await rejection(Channel.connect(URL.replace("/websocket", "/elsewhere")));
  assert.equal(error.reason, "CONNECTION_LOST");
  assert.match(error.message, /check the URL and the network/);
});

test("FleetAdmin calls carry the secret key as bearer metadata", async () => {
  const good = new AdminClient(URL, "sk_test");
  const bad = new AdminClient(URL, "sk_wrong");
  try {
    const list = await good.call("ListReaderOwnership", {});
    assert.equal(list.ownerships[0].readerId, "tmr_1");
    assert.equal(list.ownerships[0].generation, 7n);
    const error = await rejection(bad.call("ListReaderOwnership", {}));
    assert.equal(error.reason, "SECRET_KEY_INVALID");
    const unknown = await rejection(good.call("NoSuchMethod", {}));
    assert.equal(unknown.reason, "INVALID_REQUEST");
  } finally {
    good.close();
    bad.close();
  }
});

test("a stream past the flow-control windows flows because the client returns credit", () => withChannel(async (channel) => {
  let received = 0;
  await channel.serverStreaming(Control.Stream, { count: 300, size: 4096 }, (message) => { received += message.length; });
  assert.equal(received, 300 * 4096); // 1.2 MiB: above the 64 KiB call window and the 1 MiB connection window
  const log = await channel.unary(Control.Log, {});
  assert.ok(log.window_updates > 0);
}));

test("calls beyond the gateway's max_concurrent_streams wait for a free stream instead of being refused", () =>
  withChannel(async (channel) => {
    await channel.unary(Control.Log, {}); // SETTINGS has arrived
    assert.equal(channel.peer.maxConcurrentStreams, 2);
    const before = (await channel.unary(Control.Log, {})).refused_streams ?? 0;
    const answers = await Promise.all(Array.from({ length: 6 }, () => channel.unary(Control.Hold, {})));
    assert.equal(answers.length, 6);
    const after = (await channel.unary(Control.Log, {})).refused_streams ?? 0;
    assert.equal(after, before);
  }, `${URL}?scenario=two-streams`));
