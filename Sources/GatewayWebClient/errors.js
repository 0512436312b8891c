// How a call failed, as the Swift client's RPCError says it: the gRPC status code, the
// shared ErrorReason (errors.proto) and a message that says what happened and what to do.
import { ErrorReason, ErrorReasonStatusCode, StatusCode } from "./generated/readergateway/v1/errors.js";

export { ErrorReason, StatusCode };

/**
 * Reasons only the browser library gives (the gateway never sends them), with their code:
 * `ORIGIN_NOT_ALLOWED` — the gateway refused the page's origin (its `--websocket-origins`).
 */
export const ClientErrorReason = Object.freeze({
  ORIGIN_NOT_ALLOWED: "PERMISSION_DENIED",
});

/**
 * A failed call. `code` and `reason` are the short proto names ("ABORTED", "READER_BUSY");
 * `codeNumber` and `reasonNumber` the wire numbers (an unknown reason keeps its number and
 * reads "UNKNOWN_<n>"). Switch on `reason` for precise handling, on `code` for generic.
 * A rate limit's refusal carries `retryAfterMs`: the same call is refused that long.
 * A declined card (reason `CARD_DECLINED`) carries `decline_code`, as Terminal JS's errors do:
 * why the card was declined (`generic_decline`, `insufficient_funds`, `expired_card`, ...).
 * `code`, `reason` and `message` (and `argument`, `retryAfterMs`, `decline_code`) are enumerable, so
 * `JSON.stringify(error)` and `{ ...error }` show them.
 */
export class RPCError extends Error {
  constructor({ code, reason, message, cause, argument, retryAfterMs, declineCode } = {}) {
    const clientReason = typeof reason === "string" && ClientErrorReason[reason] !== undefined ? reason : null;
    const codeNumber = typeof code === "number" ? code : StatusCode[code ?? (clientReason && ClientErrorReason[clientReason])] ?? StatusCode.UNKNOWN;
    const reasonNumber = typeof reason === "number" ? reason : ErrorReason[reason] ?? ErrorReason.UNSPECIFIED;
    const codeName = StatusCode.nameOf(codeNumber) ?? `UNKNOWN_${codeNumber}`;
    super(message || `the call failed with ${codeName}`);
    Object.defineProperty(this, "name", { value: "RPCError", enumerable: false, writable: true, configurable: true });
    // Error keeps its message hidden (not enumerable): made visible for JSON and spreads.
    const text = this.message;
    delete this.message;
    this.code = codeName;
    this.reason = clientReason ?? ErrorReason.nameOf(reasonNumber) ?? `UNKNOWN_${reasonNumber}`;
    this.message = text;
    if (argument !== undefined) this.argument = argument;
    if (retryAfterMs !== undefined && Number(retryAfterMs) > 0) this.retryAfterMs = Number(retryAfterMs);
    if (typeof declineCode === "string" && declineCode !== "") this.decline_code = declineCode;
    Object.defineProperty(this, "codeNumber", { value: codeNumber, enumerable: false });
    Object.defineProperty(this, "reasonNumber", { value: reasonNumber, enumerable: false });
    if (cause !== undefined) Object.defineProperty(this, "cause", { value: cause, enumerable: false, writable: true, configurable: true });
  }

  /** The error a wire status (readergateway.v1.Status) stands for. */
  static fromStatus(status) {
    return new RPCError({
      code: status?.code ?? 0, reason: status?.reason ?? 0, message: status?.message, retryAfterMs: status?.retryAfterMs, declineCode: status?.declineCode,
    });
  }

  /** An error made on the client, with the code that belongs to `reason`. */
  static of(reason, message, cause) {
    return new RPCError({ code: ErrorReasonStatusCode[reason] ?? ClientErrorReason[reason] ?? "UNKNOWN", reason, message, cause });
  }

  /** A bad argument: INVALID_ARGUMENT / INVALID_REQUEST, naming the argument at fault. */
  static argument(argument, message) {
    return new RPCError({ code: "INVALID_ARGUMENT", reason: "INVALID_REQUEST", message: `${argument}: ${message}`, argument });
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

  /** `{ code, reason, message }` (and `argument`, `retryAfterMs`, `decline_code`): what JSON.stringify writes. */
  toJSON() {
    return { ...this };
  }

  toString() {
    return `${this.code}/${this.reason}: ${this.message}`;
  }
}
