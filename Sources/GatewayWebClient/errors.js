// How a call failed, as the Swift client's RPCError says it: the gRPC status code, the
// shared ErrorReason (errors.proto) and a message that says what happened and what to do.
import { ErrorReason, ErrorReasonStatusCode, StatusCode } from "./generated/readergateway/v1/errors.js";

export { ErrorReason, StatusCode };


/**
 * A failed call. `code` and `reason` are the short proto names ("ABORTED", "READER_BUSY");
 * `codeNumber` and `reasonNumber` the wire numbers (an unknown reason keeps its number and
 * reads "UNKNOWN_<n>"). Switch on `reason` for precise handling, on `code` for generic.
 */
export class RPCError extends Error {
  constructor({ code, reason, message, cause } = {}) {
    const codeNumber = typeof code === "number" ? code : StatusCode[code] ?? StatusCode.UNKNOWN;
    const reasonNumber = typeof reason === "number" ? reason : ErrorReason[reason] ?? ErrorReason.UNSPECIFIED;
    const codeName = StatusCode.nameOf(codeNumber) ?? `UNKNOWN_${codeNumber}`;
    super(message || `the call failed with ${codeName}`);
    this.name = "RPCError";
    this.codeNumber = codeNumber;
    this.reasonNumber = reasonNumber;
    this.code = codeName;
    this.reason = ErrorReason.nameOf(reasonNumber) ?? `UNKNOWN_${reasonNumber}`;
    if (cause !== undefined) this.cause = cause;
  }

  /** The error a wire status (readergateway.v1.Status) stands for. */
  static fromStatus(status) {
    return new RPCError({ code: status?.code ?? 0, reason: status?.reason ?? 0, message: status?.message });
  }

  /** An error made on the client, with the code that belongs to `reason`. */
  static of(reason, message, cause) {
    return new RPCError({ code: ErrorReasonStatusCode[reason] ?? "UNKNOWN", reason, message, cause });
  }

  /**
   * Whether the call certainly had no effect on the server and may be sent again as is
   * (the Swift client's isRetryable).
   */
  get isRetryable() {
    if (this.code !== "UNAVAILABLE") return false;
    return ["TOO_MANY_STREAMS", "GOING_AWAY", "CONNECTION_LOST", "KEEPALIVE_TIMEOUT", "STORE_UNAVAILABLE", "READER_LINK_MOVED", "UNSPECIFIED"].includes(this.reason);
  }

  /** Whether an idempotent call may be retried after this error (any UNAVAILABLE). */
  get isRetryableForIdempotentCall() {
    return this.code === "UNAVAILABLE";
  }

  toString() {
    return `${this.code}/${this.reason}: ${this.message}`;
  }
}
