// The FleetAdmin surface from a browser: every method of admin.proto by name, with the
// secret key as bearer metadata. `admin.call("ListReaderOwnership", { ... })` resolves
// with the response or rejects with an RPCError.
import { FleetAdmin } from "./generated/readergateway/v1/admin.js";
import { GatewayConnection } from "./connection.js";
import { RPCError } from "./errors.js";

export class AdminClient {
  /** `connection`: a GatewayConnection or a URL; `secretKey`: the account's secret key. */
  constructor(connection, secretKey, { callTimeoutMs = 15000 } = {}) {
    this.connection = typeof connection === "string" ? new GatewayConnection(connection) : connection;
    this.secretKey = secretKey;
    this.callTimeoutMs = callTimeoutMs;
  }

  /** Calls FleetAdmin's `methodName` (e.g. "ListReaderOwnership") with `request`. */
  call(methodName, request = {}, { signal, timeoutMs = this.callTimeoutMs } = {}) {
    const method = FleetAdmin[methodName];
    if (method === undefined) return Promise.reject(RPCError.of("INVALID_REQUEST", `FleetAdmin has no method ${methodName}`));
    if (method.serverStreaming || method.clientStreaming) return Promise.reject(RPCError.of("INVALID_REQUEST", `FleetAdmin.${methodName} is streaming: use stream()`));
    return this.connection.unary(method, request, { metadata: { authorization: `Bearer ${this.secretKey}` }, signal, timeoutMs });
  }

  /** A server-streaming FleetAdmin method: `onMessage` per response; resolves when it ends. */
  stream(methodName, request, onMessage, { signal } = {}) {
    const method = FleetAdmin[methodName];
    if (method === undefined || !method.serverStreaming) return Promise.reject(RPCError.of("INVALID_REQUEST", `FleetAdmin has no streaming method ${methodName}`));
    return this.connection.serverStreaming(method, request, onMessage, { metadata: { authorization: `Bearer ${this.secretKey}` }, signal });
  }

  close() {
    this.connection.close();
  }
}
