// One WebSocket connection to the gateway and the calls multiplexed on it: the client side
// of proto/PROTOCOL.md (SETTINGS, calls with method paths and deadlines, cancellation, flow
// control credit, keepalive PINGs, GOAWAY), one protocol frame per binary message.
import { CallStart, GoAway, Settings } from "./generated/readergateway/v1/frames.js";
import { Status } from "./generated/readergateway/v1/errors.js";
import { FrameType, decodeFrame, encodeFrame } from "./frames.js";
import { receiveFrame } from "./channel-receive.js";
import { RPCError } from "./errors.js";

/** The subprotocol the gateway's WebSocket endpoint speaks. */
export const SUBPROTOCOL = "readergateway.v1";
/** The path of the gateway's WebSocket endpoint. */
export const WEBSOCKET_PATH = "/readergateway/v1/websocket";

export const DEFAULTS = {
  maxFrameSize: 4194304, maxConcurrentStreams: 100,
  initialStreamWindow: 65536, initialConnectionWindow: 1048576,
};
const MAX_STREAM_ID = 0x7fffffff;

/**
 * A connection and its calls. Make one with `Channel.connect(url)`.
 *
 * Options: `keepaliveTimeMs` (PING after this long without receiving; default 10 s, never
 * below the gateway's 5 s policy in production), `keepaliveTimeoutMs` (default 10 s),
 * `WebSocket` (a constructor, default globalThis.WebSocket), `connectTimeoutMs` (default 10 s).
 */
/**
 * After a failed upgrade: the page's origin when the gateway says it does not allow it
 * (`GET /readergateway/v1/js/origins/<origin>` answers `{ origin, allowed }`), else null
 * (not a browser, no answer, or allowed: the failure is something else).
 */
async function refusedOrigin(url, options) {
  const origin = options.origin ?? globalThis.location?.origin;
  if (typeof origin !== "string" || origin === "null" || typeof globalThis.fetch !== "function") return null;
  try {
    const gateway = new URL(url);
    const probe = `${gateway.protocol === "ws:" ? "http:" : "https:"}//${gateway.host}/readergateway/v1/js/origins/${encodeURIComponent(origin)}`;
    const answer = await (await globalThis.fetch(probe, { cache: "no-store" })).json();
    return answer?.allowed === false ? origin : null;
  } catch {
    return null;
  }
}

export class Channel {
  /** Opens the WebSocket and sends SETTINGS; resolves when the upgrade succeeded. */
  static connect(url, options = {}) {
    const WebSocketImpl = options.WebSocket ?? globalThis.WebSocket;
    if (WebSocketImpl === undefined) return Promise.reject(RPCError.of("CONNECTION_LOST", "this environment has no WebSocket"));
    return new Promise((resolve, reject) => {
      let socket;
      try {
        socket = new WebSocketImpl(url, [SUBPROTOCOL]);
      } catch (error) {
        reject(RPCError.of("CONNECTION_LOST", `cannot open ${url}: ${error.message}`, error));
        return;
      }
      socket.binaryType = "arraybuffer";
      let settled = false;
      const refuse = (error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        try {
          socket.close();
        } catch {
          // Not open yet.
        }
        reject(error);
      };
      const timeoutMs = options.connectTimeoutMs ?? 10000;
      const timer = setTimeout(() => refuse(RPCError.of("CONNECTION_LOST", `no WebSocket connection to ${url} within ${timeoutMs} ms`)), timeoutMs);
      socket.onopen = () => {
        if (settled) return;
        if (socket.protocol !== SUBPROTOCOL) {
          refuse(RPCError.of("UNSUPPORTED_PROTOCOL", `the server at ${url} did not select the subprotocol ${SUBPROTOCOL}`));
          return;
        }
        settled = true;
        clearTimeout(timer);
        resolve(new Channel(socket, options));
      };
      // A refused upgrade fires error (and, in browsers, close): either ends the attempt. A
      // browser does not say why; the gateway does, when asked whether it allows the page's origin.
      const failed = (detail) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        refusedOrigin(url, options).then((origin) => reject(origin
          ? RPCError.of("ORIGIN_NOT_ALLOWED", `the gateway refused this page's origin ${origin}: start reader-gateway with --websocket-origins ${origin} (comma-separated, with the origins it already allows); \`make run\` allows http://localhost:* and http://127.0.0.1:* for development`)
          : RPCError.of("CONNECTION_LOST", `the WebSocket upgrade to ${url} failed (${detail}); check the URL and the network`)));
      };
      socket.onerror = () => failed("error");
      socket.onclose = (event) => failed(`close ${event.code}`);
    });
  }

  constructor(socket, options = {}) {
    this.socket = socket;
    this.keepaliveTimeMs = options.keepaliveTimeMs ?? 10000;
    this.keepaliveTimeoutMs = options.keepaliveTimeoutMs ?? 10000;
    this.peer = { ...DEFAULTS };
    this.local = { ...DEFAULTS };
    this.nextStreamId = 1;
    this.calls = new Map();
    this.waiting = []; // calls waiting for a free stream (max_concurrent_streams)
    this.connectionSendWindow = DEFAULTS.initialConnectionWindow;
    this.connectionCreditOwed = 0;
    this.goAwayLastStreamId = null;
    this.closed = false;
    this.closeError = null;
    this.closeListeners = new Set();
    this.goAwayListeners = new Set();
    this.keepaliveListeners = new Set();
    this.pingOutstanding = null;
    this.pingCounter = 0n;
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => this.lost(RPCError.of("CONNECTION_LOST", `the connection to the gateway closed (WebSocket close ${event.code}${event.reason ? ` ${event.reason}` : ""})`));
    socket.onerror = () => {};
    this.write(encodeFrame(FrameType.SETTINGS, 0, Settings.encode({ protocolVersion: 1 })));
    this.armKeepalive();
  }

  /** Whether new calls may start here (open, no GOAWAY received). */
  get isUsable() {
    return !this.closed && this.goAwayLastStreamId === null && this.nextStreamId <= MAX_STREAM_ID;
  }

  /** Calls `listener(error)` once when the connection ends. Returns a function that removes it. */
  onClose(listener) {
    if (this.closed) queueMicrotask(() => listener(this.closeError));
    else this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Calls `listener(goAway)` when the gateway sends GOAWAY. */
  onGoAway(listener) {
    this.goAwayListeners.add(listener);
    return () => this.goAwayListeners.delete(listener);
  }

  /** Calls `listener()` each time the gateway answers a keepalive PING (the link is alive). */
  onKeepalive(listener) {
    this.keepaliveListeners.add(listener);
    return () => this.keepaliveListeners.delete(listener);
  }

  /**
   * A unary call: resolves with the decoded response, rejects with an RPCError.
   * Options: `timeoutMs`, `metadata` ({ key: string | Uint8Array }), `signal` (AbortSignal).
   */
  unary(method, request, options = {}) {
    return new Promise((resolve, reject) => {
      let response;
      this.start(method, request, options, {
        message: (message) => { response = message; },
        end: (error) => {
          if (error) reject(error);
          else if (response === undefined) reject(RPCError.of("MALFORMED_MESSAGE", `${method.path} ended without a response`));
          else resolve(response);
        },
      });
    });
  }

  /**
   * A server-streaming call: `onMessage(message)` for each response; the returned promise
   * resolves when the call ends OK and rejects with an RPCError otherwise. Cancel it with
   * `options.signal`.
   */
  serverStreaming(method, request, onMessage, options = {}) {
    return new Promise((resolve, reject) => {
      this.start(method, request, options, {
        message: onMessage,
        end: (error) => (error ? reject(error) : resolve()),
      });
    });
  }

  /** Closes the connection: every open call fails with CANCELLED. */
  close(reason = "closed by the application") {
    if (this.closed) return;
    this.lost(RPCError.of("CANCELLED_BY_PEER", reason));
  }

  // --- calls ----------------------------------------------------------------

  start(method, request, options, handlers) {
    const call = { method, request, options, handlers, ended: false };
    if (options.signal?.aborted) {
      handlers.end(RPCError.of("CANCELLED_BY_PEER", "the call was cancelled by its caller"));
      return;
    }
    if (this.closed) {
      handlers.end(this.closeError ?? RPCError.of("CONNECTION_LOST", "the connection is closed"));
      return;
    }
    if (this.goAwayLastStreamId !== null) {
      handlers.end(RPCError.of("GOING_AWAY", "the gateway is going away: retry on a new connection"));
      return;
    }
    if (options.timeoutMs !== undefined) {
      call.deadline = setTimeout(() => this.fail(call, RPCError.of("DEADLINE_EXCEEDED", `${method.path} did not finish within ${options.timeoutMs} ms`), true), options.timeoutMs);
    }
    if (options.signal) {
      call.abort = () => this.fail(call, RPCError.of("CANCELLED_BY_PEER", "the call was cancelled by its caller"), true);
      options.signal.addEventListener("abort", call.abort, { once: true });
    }
    let payload;
    try {
      payload = method.requestType.encode(request);
    } catch (error) {
      this.finish(call, RPCError.of("INVALID_REQUEST", `the request of ${method.path} cannot be encoded: ${error.message}`, error));
      return;
    }
    if (payload.length > this.peer.maxFrameSize) {
      this.finish(call, RPCError.of("MESSAGE_TOO_LARGE", `the request of ${method.path} is ${payload.length} bytes, above the gateway's frame limit`));
      return;
    }
    call.payload = payload;
    if (this.calls.size >= this.peer.maxConcurrentStreams) this.waiting.push(call);
    else this.open(call);
  }

  open(call) {
    if (this.nextStreamId > MAX_STREAM_ID) {
      this.finish(call, RPCError.of("GOING_AWAY", "this connection ran out of call ids: retry on a new connection"));
      return;
    }
    call.id = this.nextStreamId;
    this.nextStreamId += 2;
    call.sendWindow = this.peer.initialStreamWindow;
    call.creditOwed = 0;
    this.calls.set(call.id, call);
    const metadata = Object.entries(call.options.metadata ?? {}).map(([key, value]) => ({
      key: key.toLowerCase(),
      value: typeof value === "string" ? new TextEncoder().encode(value) : value,
    }));
    const start = { method: call.method.path, timeoutMs: BigInt(call.options.timeoutMs ?? 0), metadata };
    this.write(encodeFrame(FrameType.CALL_START, call.id, CallStart.encode(start)));
    // One request message: the windows start above any frame the gateway accepts, so a
    // request never waits for credit on a fresh call; the connection window is honoured.
    this.connectionSendWindow -= call.payload.length;
    call.sendWindow -= call.payload.length;
    this.write(encodeFrame(FrameType.MESSAGE, call.id, call.payload));
    this.write(encodeFrame(FrameType.HALF_CLOSE, call.id));
  }

  /** Ends a call locally; with `sendCancel`, tells the gateway (deadline, caller's cancel). */
  fail(call, error, sendCancel) {
    if (call.ended) return;
    if (sendCancel && call.id !== undefined && !this.closed) {
      const status = Status.encode({ code: error.codeNumber, reason: error.reasonNumber, message: error.message });
      this.write(encodeFrame(FrameType.CANCEL, call.id, status));
    }
    this.finish(call, error);
  }

  finish(call, error) {
    if (call.ended) return;
    call.ended = true;
    clearTimeout(call.deadline);
    if (call.abort) call.options.signal.removeEventListener("abort", call.abort);
    if (call.id !== undefined) this.calls.delete(call.id);
    const index = this.waiting.indexOf(call);
    if (index >= 0) this.waiting.splice(index, 1);
    call.handlers.end(error);
    while (this.waiting.length > 0 && this.calls.size < this.peer.maxConcurrentStreams && !this.closed) this.open(this.waiting.shift());
    if (this.goAwayLastStreamId !== null && this.calls.size === 0) this.lost(RPCError.of("GOING_AWAY", "the gateway closed this connection after GOAWAY"));
  }

  // --- frames in ----------------------------------------------------------------

  receive(data) {
    if (this.closed) return;
    this.armKeepalive();
    const frame = decodeFrame(new Uint8Array(data));
    if (frame === null) {
      this.protocolError("a WebSocket message that is not exactly one frame");
      return;
    }
    try {
      receiveFrame(this, frame);
    } catch (error) {
      this.protocolError(`a frame that cannot be decoded: ${error.message}`);
    }
  }

  /** Returns flow-control credit once half a window is owed (PROTOCOL.md section 6). */
  returnCredit(call, count) {
    this.connectionCreditOwed += count;
    if (this.connectionCreditOwed >= this.local.initialConnectionWindow / 2) {
      this.write(windowUpdate(0, this.connectionCreditOwed));
      this.connectionCreditOwed = 0;
    }
    if (call === undefined || call.ended) return;
    call.creditOwed += count;
    if (call.creditOwed >= this.local.initialStreamWindow / 2) {
      this.write(windowUpdate(call.id, call.creditOwed));
      call.creditOwed = 0;
    }
  }

  protocolError(detail) {
    const error = RPCError.of("PROTOCOL_ERROR", `the gateway sent ${detail}`);
    const goAway = GoAway.encode({ lastStreamId: 0, status: { code: error.codeNumber, reason: error.reasonNumber, message: error.message } });
    this.write(encodeFrame(FrameType.GOAWAY, 0, goAway));
    this.lost(error);
  }

  // --- keepalive and the end ----------------------------------------------------

  armKeepalive() {
    clearTimeout(this.keepaliveTimer);
    if (this.closed || this.pingOutstanding) return;
    this.keepaliveTimer = setTimeout(() => {
      if (this.closed) return;
      this.pingCounter += 1n;
      const payload = new Uint8Array(8);
      new DataView(payload.buffer).setBigUint64(0, this.pingCounter);
      this.write(encodeFrame(FrameType.PING, 0, payload));
      this.pingOutstanding = setTimeout(() => {
        this.lost(RPCError.of("KEEPALIVE_TIMEOUT", `the gateway did not answer a PING within ${this.keepaliveTimeoutMs} ms: the connection is dead`));
      }, this.keepaliveTimeoutMs);
    }, this.keepaliveTimeMs);
  }

  write(bytes) {
    if (this.closed) return;
    try {
      this.socket.send(bytes);
    } catch (error) {
      this.lost(RPCError.of("CONNECTION_LOST", `writing to the gateway failed: ${error.message}`, error));
    }
  }

  /**
   * Ends the connection: every call fails with `error`. A browser may only close with 1000
   * or 3000-4999, so the client always closes with 1000 (the GOAWAY it sent first, if any,
   * says why).
   */
  lost(error) {
    if (this.closed) return;
    this.closed = true;
    this.closeError = error;
    clearTimeout(this.keepaliveTimer);
    clearTimeout(this.pingOutstanding);
    for (const call of [...this.waiting, ...this.calls.values()]) this.finish(call, error);
    try {
      this.socket.close(1000);
    } catch {
      // Already closing.
    }
    for (const listener of this.closeListeners) listener(error);
    this.closeListeners.clear();
  }
}

function windowUpdate(streamId, increment) {
  const payload = new Uint8Array(4);
  new DataView(payload.buffer).setUint32(0, increment);
  return encodeFrame(FrameType.WINDOW_UPDATE, streamId, payload);
}
