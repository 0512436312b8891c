// Frames and codecs against the bytes of proto/PROTOCOL.md section 11.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FrameType, decodeFrame, encodeFrame } from "../../../Sources/GatewayWebClient/frames.js";
import { CallEnd, CallStart, GoAway, Settings } from "../../../Sources/GatewayWebClient/generated/readergateway/v1/frames.js";
import { ConnectReaderRequest, SessionEvent } from "../../../Sources/GatewayWebClient/generated/readergateway/v1/sdk.js";
import { RPCError } from "../../../Sources/GatewayWebClient/errors.js";
import { ProtobufError, oneofCase } from "../../../Sources/GatewayWebClient/protobuf.js";

const hex = (text) => Uint8Array.from(text.trim().split(/\s+/).map((byte) => parseInt(byte, 16)));

test("SETTINGS, CALL_START, MESSAGE and HALF_CLOSE are PROTOCOL.md's bytes", () => {
  assert.deepEqual(encodeFrame(FrameType.SETTINGS, 0, Settings.encode({ protocolVersion: 1 })), hex("00 00 00 02 00 00 00 00 00 00 08 01"));
  const start = CallStart.encode({
    method: "/readergateway.v1.Sdk/ConnectReader", timeoutMs: 5000n,
    metadata: [{ key: "x-lane", value: new TextEncoder().encode("3") }],
  });
  assert.deepEqual(encodeFrame(FrameType.CALL_START, 1, start), hex(`00 00 00 35 01 00 00 00 00 01 0a 23 2f 72 65 61 64 65 72 67 61 74 65 77 61 79
    2e 76 31 2e 53 64 6b 2f 43 6f 6e 6e 65 63 74 52 65 61 64 65 72 10 88 27 1a 0b 0a
    06 78 2d 6c 61 6e 65 12 01 33`));
  const request = ConnectReaderRequest.encode({ sessionToken: "st_1", readerId: "tmr_1", discoveryId: "disc_1", failIfInUse: true });
  assert.deepEqual(encodeFrame(FrameType.MESSAGE, 1, request), hex(`00 00 00 17 02 00 00 00 00 01 0a 04 73 74 5f 31 12 05 74 6d 72 5f 31 1a 06 64 69 73
    63 5f 31 20 01`));
  assert.deepEqual(encodeFrame(FrameType.HALF_CLOSE, 1), hex("00 00 00 00 03 00 00 00 00 01"));
});

test("END_OF_CALL and GOAWAY decode to PROTOCOL.md's statuses; the error carries the reason", () => {
  const end = decodeFrame(hex("00 00 00 13 04 00 00 00 00 01 0a 11 08 0a 10 0a 1a 0b 72 65 61 64 65 72 20 62 75 73 79"));
  assert.equal(end.type, FrameType.END_OF_CALL);
  assert.equal(end.streamId, 1);
  const error = RPCError.fromStatus(CallEnd.decode(end.payload).status);
  assert.equal(error.code, "ABORTED");
  assert.equal(error.reason, "READER_BUSY");
  assert.equal(error.message, "reader busy");
  assert.equal(error.isRetryable, false);
  const goAway = GoAway.decode(decodeFrame(hex("00 00 00 0d 07 00 00 00 00 00 08 01 12 09 08 0e 10 71 1a 03 62 79 65")).payload);
  assert.equal(goAway.lastStreamId, 1);
  assert.equal(RPCError.fromStatus(goAway.status).reason, "GOING_AWAY");
  assert.equal(RPCError.fromStatus(goAway.status).isRetryable, true);
});

test("a rate limit's wait arrives as retryAfterMs (Status.retry_after_ms, field 4)", () => {
  // Status { code: RESOURCE_EXHAUSTED, reason: AUTHENTICATION_RATE_LIMITED (76), message: "wait", retry_after_ms: 1500 }
  const error = RPCError.fromStatus(CallEnd.decode(hex("0a 0d 08 08 10 4c 1a 04 77 61 69 74 20 dc 0b")).status);
  assert.equal(error.code, "RESOURCE_EXHAUSTED");
  assert.equal(error.reason, "AUTHENTICATION_RATE_LIMITED");
  assert.equal(error.retryAfterMs, 1500);
  assert.deepEqual(JSON.parse(JSON.stringify(error)), { code: "RESOURCE_EXHAUSTED", reason: "AUTHENTICATION_RATE_LIMITED", message: "wait", retryAfterMs: 1500 });
  // No wait known: no field.
  assert.equal(RPCError.fromStatus({ code: 10, reason: 10, message: "busy" }).retryAfterMs, undefined);
});

test("a declined card's code arrives as decline_code (Status.decline_code, field 5), as Terminal JS names it", () => {
  // Status { code: FAILED_PRECONDITION, reason: CARD_DECLINED (81), message: "declined", decline_code: "expired_card" }
  const error = RPCError.fromStatus(CallEnd.decode(hex("0a 1c 08 09 10 51 1a 08 64 65 63 6c 69 6e 65 64 2a 0c 65 78 70 69 72 65 64 5f 63 61 72 64")).status);
  assert.equal(error.code, "FAILED_PRECONDITION");
  assert.equal(error.reason, "CARD_DECLINED");
  assert.equal(error.decline_code, "expired_card");
  assert.deepEqual(JSON.parse(JSON.stringify(error)), { code: "FAILED_PRECONDITION", reason: "CARD_DECLINED", message: "declined", decline_code: "expired_card" });
  // Not a decline: no field.
  assert.equal(RPCError.fromStatus({ code: 10, reason: 31, message: "card removed" }).decline_code, undefined);
});

test("a message that is not exactly one frame is refused", () => {
  assert.equal(decodeFrame(hex("00 00 00 02 00 00 00 00 00 00 08")), null);
  assert.equal(decodeFrame(hex("00 00 00 00 03 00 00 00 00")), null);
  assert.equal(decodeFrame(hex("00 00 00 00 03 00 00 00 00 01 00")), null);
});

test("errors made on the client get the status code of their reason, and unknown numbers survive", () => {
  assert.equal(RPCError.of("DEADLINE_EXCEEDED", "late").code, "DEADLINE_EXCEEDED");
  assert.equal(RPCError.of("STORE_UNAVAILABLE", "down").code, "UNAVAILABLE");
  assert.equal(RPCError.of("STORE_UNAVAILABLE", "down").isRetryable, true);
  const unknown = RPCError.fromStatus({ code: 14, reason: 999, message: "new" });
  assert.equal(unknown.reason, "UNKNOWN_999");
  assert.equal(unknown.isRetryableForIdempotentCall, true);
});

test("oneofs: one member set, the last one on the wire wins, two set cannot be encoded", () => {
  const first = SessionEvent.encode({ sequence: 1n, reconnectStarted: { readerId: "a" } });
  const second = SessionEvent.encode({ reconnectSucceeded: { readerId: "b" } });
  const both = new Uint8Array([...first, ...second]);
  const event = SessionEvent.decode(both);
  assert.equal(oneofCase(SessionEvent, event, "event"), "reconnectSucceeded");
  assert.equal(event.reconnectStarted, undefined);
  assert.equal(event.sequence, 1n);
  assert.throws(() => SessionEvent.encode({ reconnectStarted: {}, reconnectSucceeded: {} }), /more than one member/);
});

test("nesting beyond the limit is refused", () => {
  const callEnd = CallEnd.encode({ status: { code: 1 } }); // two levels: CallEnd, Status
  assert.throws(() => CallEnd.decode(callEnd, { maxDepth: 1 }), ProtobufError);
  assert.equal(CallEnd.decode(callEnd, { maxDepth: 2 }).status.code, 1);
});
