// The frames of proto/PROTOCOL.md (section 2 and 3): a 10-byte big-endian header (payload
// length, type, flags, stream id) and a payload. Over WebSocket each binary message is
// exactly one frame, and there is no preface (PROTOCOL.md, "WebSocket binding").

export const FrameType = Object.freeze({
  SETTINGS: 0x0, CALL_START: 0x1, MESSAGE: 0x2, HALF_CLOSE: 0x3, END_OF_CALL: 0x4,
  CANCEL: 0x5, PING: 0x6, GOAWAY: 0x7, WINDOW_UPDATE: 0x8,
});

export const FLAG_ACK = 0x01;
export const HEADER_SIZE = 10;

/** One frame's bytes. */
export function encodeFrame(type, streamId, payload = new Uint8Array(0), flags = 0) {
  const bytes = new Uint8Array(HEADER_SIZE + payload.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, payload.length);
  view.setUint8(4, type);
  view.setUint8(5, flags);
  view.setUint32(6, streamId & 0x7fffffff);
  bytes.set(payload, HEADER_SIZE);
  return bytes;
}

/**
 * The frame in one WebSocket message: { type, flags, streamId, payload }, or null when the
 * message is not exactly one frame (a connection error).
 */
export function decodeFrame(message) {
  const bytes = message instanceof Uint8Array ? message : new Uint8Array(message);
  if (bytes.length < HEADER_SIZE) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(0);
  if (bytes.length - HEADER_SIZE !== length) return null;
  return {
    type: view.getUint8(4),
    flags: view.getUint8(5),
    streamId: view.getUint32(6) & 0x7fffffff,
    payload: bytes.subarray(HEADER_SIZE),
  };
}
