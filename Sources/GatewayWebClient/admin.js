// The FleetAdmin surface from a browser: every method of admin.proto by name, with the
// secret key as bearer metadata. `admin.call("ListReaderOwnership", { ... })` resolves
// with the response or rejects with an RPCError. The fleet console passes no key: its
// session cookie (sent with the WebSocket upgrade) authorises the calls, and `csrfToken`
// goes with each as `x-csrf-token` (changes are refused without it).
import { FleetAdmin } from "./generated/readergateway/v1/admin.js";
import { GatewayConnection } from "./connection.js";
import { RPCError } from "./errors.js";

export class AdminClient {
  /**
   * `connection`: a GatewayConnection or a URL; `secretKey`: the account's secret key, or
   * null for a console page signed in with its session cookie (then pass `csrfToken`).
   */
  constructor(connection, secretKey, { callTimeoutMs = 15000, csrfToken = null } = {}) {
    this.connection = typeof connection === "string" ? new GatewayConnection(connection) : connection;
    this.secretKey = secretKey;
    this.csrfToken = csrfToken;
    this.callTimeoutMs = callTimeoutMs;
  }

  /** The metadata every call carries. */
  metadata() {
    const metadata = {};
    if (this.secretKey) metadata.authorization = `Bearer ${this.secretKey}`;
    if (this.csrfToken) metadata["x-csrf-token"] = this.csrfToken;
    return metadata;
  }

  /** Calls FleetAdmin's `methodName` (e.g. "ListReaderOwnership") with `request`. */
  call(methodName, request = {}, { signal, timeoutMs = this.callTimeoutMs } = {}) {
    const method = FleetAdmin[methodName];
    if (method === undefined) return Promise.reject(RPCError.of("INVALID_REQUEST", `FleetAdmin has no method ${methodName}`));
    if (method.serverStreaming || method.clientStreaming) return Promise.reject(RPCError.of("INVALID_REQUEST", `FleetAdmin.${methodName} is streaming: use stream()`));
    return this.connection.unary(method, request, { metadata: this.metadata(), signal, timeoutMs });
  }

  /** A server-streaming FleetAdmin method: `onMessage` per response; resolves when it ends. */
  stream(methodName, request, onMessage, { signal } = {}) {
    const method = FleetAdmin[methodName];
    if (method === undefined || !method.serverStreaming) return Promise.reject(RPCError.of("INVALID_REQUEST", `FleetAdmin has no streaming method ${methodName}`));
    return this.connection.serverStreaming(method, request, onMessage, { metadata: this.metadata(), signal });
  }

  close() {
    this.connection.close();
  }
}
