// A point-of-sale lane in a browser, shaped like Stripe Terminal JS (docs/client.md):
// `ReaderGateway.create({ onFetchConnectionToken, ... })`, then discoverReaders,
// connectReader, collectPaymentMethod, processPayment. Every method resolves to a result
// ({ discoveredReaders }, { reader }, { paymentIntent }, {}) or to { error }, for every
// input; it never rejects or throws. Objects are Terminal JS's (objects.js): snake_case,
// string enums, numbers. What the gateway adds: who took a reader (the disconnect event's
// `taken_by`), and a session that survives a network blip (resumed with its token,
// keeping its reader).
import { Sdk, DisconnectReason } from "./generated/readergateway/v1/sdk.js";
import { GatewayConnection } from "./connection.js";
import { RPCError } from "./errors.js";
import * as objects from "./objects.js";

const RESUMABLE = new Set(["CONNECTION_LOST", "GOING_AWAY", "KEEPALIVE_TIMEOUT", "STORE_UNAVAILABLE"]);

// The methods a page calls; bound to their terminal, so `const { discoverReaders } = terminal` works too.
const METHODS = [
  "discoverReaders", "cancelDiscovery", "connectReader", "easyConnect", "disconnectReader", "collectPaymentMethod",
  "cancelCollectPaymentMethod", "processPayment", "setReaderDisplay", "clearReaderDisplay", "rebootReader",
  "installAvailableUpdate", "getConnectionStatus", "getPaymentStatus", "getGatewayStatus", "getConnectedReader",
  "getSession", "clearCachedCredentials", "close",
];
const CALLBACKS = ["onFetchConnectionToken", "onUnexpectedReaderDisconnect", "onConnectionStatusChange", "onPaymentStatusChange", "onSessionResumed", "onReaderEvent"];

/** The gateway's WebSocket URL beside this module (it is served at https://<gateway>/readergateway/v1/js/). */
function urlBesideLibrary() {
  try {
    const here = new URL(import.meta.url);
    if (here.protocol !== "https:" && here.protocol !== "http:") return null;
    return `${here.protocol === "https:" ? "wss:" : "ws:"}//${here.host}/readergateway/v1/websocket`;
  } catch {
    return null;
  }
}

/**
 * This browser's point-of-sale device id when the page gives none (Terminal JS pages do not):
 * made once per tab and kept in sessionStorage, so it stays the same across reloads (two tabs
 * are two lanes); without storage
 * (node, a locked-down browser), one per terminal.
 */
function defaultPosDeviceId() {
  const key = "readergateway.pos_device_id";
  const made = `pos_${globalThis.crypto?.randomUUID?.().replaceAll("-", "").slice(0, 16) ?? Math.random().toString(36).slice(2, 18)}`;
  try {
    const storage = globalThis.sessionStorage;
    if (!storage) return made;
    const kept = storage.getItem(key);
    if (kept) return kept;
    storage.setItem(key, made);
  } catch {
    // Storage refused (a sandboxed frame, privacy settings): this terminal's own id.
  }
  return made;
}

/** What is wrong with create's options, as the error every call then resolves with; null when nothing is. */
function optionsProblem(options) {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    return RPCError.argument("ReaderGateway.create's options", `must be an object with onFetchConnectionToken, not ${objects.describe(options)}`);
  }
  if (typeof options.onFetchConnectionToken !== "function") {
    return RPCError.argument("onFetchConnectionToken", `must be a function that resolves to a connection token your backend created, not ${objects.describe(options.onFetchConnectionToken)}`);
  }
  for (const name of CALLBACKS) {
    if (options[name] !== undefined && options[name] !== null && typeof options[name] !== "function") {
      return RPCError.argument(name, `must be a function, not ${objects.describe(options[name])}`);
    }
  }
  for (const name of ["posDeviceId", "laneLabel"]) {
    if (options[name] !== undefined && options[name] !== null && typeof options[name] !== "string") {
      return RPCError.argument(name, `must be a string, not ${objects.describe(options[name])}`);
    }
  }
  const url = options.url ?? urlBesideLibrary();
  if (typeof url !== "string" || !/^wss?:\/\/[^/]+/.test(url)) {
    return RPCError.argument("url", `must be the gateway's WebSocket URL (wss://<gateway>:<port>/readergateway/v1/websocket), not ${objects.describe(url)}`);
  }
  return null;
}

export class Terminal {
  /**
   * A lane. Options (Stripe Terminal JS's `create`, plus the gateway's):
   * - `onFetchConnectionToken`: async () => a connection token your backend created
   * - `onUnexpectedReaderDisconnect({ error, reason, reader, taken_by, message })`
   * - `onConnectionStatusChange({ status })`, `onPaymentStatusChange({ status })`
   * - `url`: the gateway's WebSocket URL; by default the gateway this module was loaded from
   * - `posDeviceId`, `laneLabel`: who this lane is (shown to a lane it takes a reader from);
   *   by default an id kept for this tab (sessionStorage)
   * - `readerBehavior: { allowCustomerCancel }`, `onSessionResumed({ session })`, `onReaderEvent(event)`
   * - `callTimeoutMs` (default 15000), `connection` (a shared GatewayConnection), and the
   *   Channel's options (`keepaliveTimeMs`, `keepaliveTimeoutMs`, `WebSocket`, ...)
   * Never throws: with bad options, every call resolves with the error naming the option.
   */
  static create(options) {
    return new Terminal(options);
  }

  constructor(options) {
    for (const name of METHODS) this[name] = this[name].bind(this);
    try {
      this.optionsError = optionsProblem(options);
    } catch (error) {
      this.optionsError = RPCError.argument("ReaderGateway.create's options", `could not be read (${error?.message ?? error})`);
    }
    this.options = this.optionsError ? {} : options;
    this.connection = this.optionsError ? null : options.connection ?? new GatewayConnection(options.url ?? urlBesideLibrary(), options);
    this.callTimeoutMs = this.options.callTimeoutMs ?? 15000;
    this.posDeviceId = this.optionsError ? "" : this.options.posDeviceId || defaultPosDeviceId();
    this.session = null; // { sessionId, sessionToken, leaseMs, resumed }
    this.sessionOpening = null;
    this.connectedReader = null; // a terminal.reader (objects.reader)
    this.connectionStatus = "not_connected";
    this.paymentStatus = "not_ready";
    this.lostError = null; // the last loss's error, until the next connect (objects.lossError)
    this.losses = 0;
    this.subscription = null;
    this.closed = false;
    this.lastSequence = 0n;
  }

  // --- Stripe Terminal JS's surface ----------------------------------------------

  /**
   * Every reader of a location, online and offline: `{ discoveredReaders }`. Config:
   * `{ location, simulated, device_type, method: "internet", discovery_filter }` (all
   * optional; `location` defaults to the connection token's). `discovery_filter`
   * (`{ reader_id }` or `{ serial_number }`, iOS 5.1's discoveryFilter) answers that one
   * reader, or none when no reader of the account at the location matches.
   */
  discoverReaders(config) {
    return this.result(async () => {
      const options = objects.optionsArgument(config, "discoverReaders' config");
      const location = objects.stringArgument(options.location, "config.location", { optional: true });
      const simulated = objects.booleanArgument(options.simulated, "config.simulated");
      const deviceType = objects.stringArgument(options.device_type, "config.device_type", { optional: true });
      const filter = objects.discoveryFilterArgument(options.discovery_filter, "config.discovery_filter", { optional: true });
      if (options.method !== undefined && options.method !== "internet") {
        throw RPCError.argument("config.method", `must be "internet" (readers reach the gateway themselves), not ${objects.describe(options.method)}`);
      }
      const response = await this.call(Sdk.DiscoverReaders, { sessionToken: await this.sessionToken(), locationId: location, simulated, timeoutMs: 0n, filter });
      // A replica of a release before the filter ignores it and lists the location: only the reader named is kept.
      const named = filter ? response.readers.filter((reader) => (filter.readerId ? reader.id === filter.readerId : reader.serialNumber === filter.serialNumber)) : response.readers;
      const readers = named.map((reader) => objects.reader(reader, response.discoveryId));
      return { discoveredReaders: deviceType ? readers.filter((reader) => reader.device_type === deviceType) : readers };
    });
  }

  /** Cancels a discovery still waiting for its answer (it then resolves DISCOVERY_CANCELED). */
  cancelDiscovery() {
    return this.result(async () => {
      await this.call(Sdk.CancelDiscovery, { sessionToken: await this.sessionToken() });
      return {};
    });
  }

  /**
   * Connects a reader from the latest discovery: `{ reader }` (plus `replaced_other_session`
   * and `generation`). With `{ fail_if_in_use: true }`, a reader in the middle of another
   * lane's transaction is refused with READER_BUSY instead of taken.
   */
  connectReader(reader, connectOptions) {
    return this.result(async () => {
      const target = objects.readerArgument(reader, "connectReader's reader");
      const options = objects.optionsArgument(connectOptions, "connectReader's options");
      const failIfInUse = objects.booleanArgument(options.fail_if_in_use, "options.fail_if_in_use");
      this.setConnectionStatus("connecting");
      try {
        const response = await this.call(Sdk.ConnectReader, {
          sessionToken: await this.sessionToken(),
          readerId: target.id,
          discoveryId: target.discovery_id ?? "",
          failIfInUse,
          posDeviceId: this.posDeviceId,
          laneLabel: this.options.laneLabel ?? "",
          locationId: typeof target.location === "string" ? target.location : "",
        });
        this.connectedReader = response.reader ? objects.reader(response.reader, target.discovery_id ?? null) : target;
        this.lostError = null;
        this.setConnectionStatus("connected");
        this.setPaymentStatus("ready");
        return {
          reader: this.connectedReader,
          replaced_other_session: Boolean(response.replacedOtherSession),
          generation: objects.safeNumber(response.generation, "generation"),
          required_update_failure: response.requiredUpdateFailure ? RPCError.fromStatus(response.requiredUpdateFailure) : null,
        };
      } catch (error) {
        this.setConnectionStatus(this.connectedReader ? "connected" : "not_connected");
        throw error;
      }
    });
  }

  /**
   * Discovers one reader and connects it in one call (Stripe's easyConnect): `{ reader,
   * replaced_other_session, generation, required_update_failure, discovery_id }`, as
   * connectReader answers. Config: `{ location, discovery_filter, fail_if_in_use }`, where
   * `discovery_filter` (`{ reader_id }` or `{ serial_number }`) is required; the
   * failIfInUse rules and errors are connectReader's. No reader matching resolves
   * READER_NOT_FOUND and connects nothing.
   */
  easyConnect(config) {
    return this.result(async () => {
      const options = objects.optionsArgument(config, "easyConnect's config");
      const location = objects.stringArgument(options.location, "config.location", { optional: true });
      const filter = objects.discoveryFilterArgument(options.discovery_filter, "config.discovery_filter");
      const failIfInUse = objects.booleanArgument(options.fail_if_in_use, "config.fail_if_in_use");
      this.setConnectionStatus("connecting");
      try {
        const response = await this.call(Sdk.EasyConnect, {
          sessionToken: await this.sessionToken(),
          locationId: location,
          filter,
          failIfInUse,
          posDeviceId: this.posDeviceId,
          laneLabel: this.options.laneLabel ?? "",
        });
        const connection = response.connection;
        if (!connection?.reader) throw new RPCError({ code: "INTERNAL", reason: "UNSPECIFIED", message: "EasyConnect answered without the connected reader" });
        this.connectedReader = objects.reader(connection.reader, response.discoveryId);
        this.lostError = null;
        this.setConnectionStatus("connected");
        this.setPaymentStatus("ready");
        return {
          reader: this.connectedReader,
          replaced_other_session: Boolean(connection.replacedOtherSession),
          generation: objects.safeNumber(connection.generation, "generation"),
          required_update_failure: connection.requiredUpdateFailure ? RPCError.fromStatus(connection.requiredUpdateFailure) : null,
          discovery_id: response.discoveryId,
        };
      } catch (error) {
        this.setConnectionStatus(this.connectedReader ? "connected" : "not_connected");
        throw error;
      }
    });
  }

  /** Gives the reader back: `{}`. */
  disconnectReader() {
    return this.result(async () => {
      await this.call(Sdk.DisconnectReader, { sessionToken: await this.sessionToken() });
      this.connectedReader = null;
      this.lostError = null;
      this.setConnectionStatus("not_connected");
      this.setPaymentStatus("not_ready");
      return {};
    });
  }

  /**
   * Collects a payment method on the connected reader: `{ paymentIntent }` with status
   * "requires_confirmation" and the card in `sdk_payment_details`. `request` is what
   * Terminal JS takes, the PaymentIntent's client secret ("pi_…_secret_…"), or its id, or
   * `{ id, amount, currency }` (the reader then shows the amount). Options:
   * `{ config_override: { skip_tipping, enable_customer_cancellation } }`.
   */
  collectPaymentMethod(request, options) {
    return this.readerCommand(async () => {
      const intent = objects.intentArgument(request, "collectPaymentMethod's clientSecret");
      const overrides = objects.optionsArgument(objects.optionsArgument(options, "collectPaymentMethod's options").config_override, "options.config_override");
      const skipTipping = objects.booleanArgument(overrides.skip_tipping, "options.config_override.skip_tipping");
      const allowCancel = this.options.readerBehavior?.allowCustomerCancel ?? false;
      const customerCancellation = objects.booleanArgument(overrides.enable_customer_cancellation, "options.config_override.enable_customer_cancellation", allowCancel === true);
      const token = await this.readerSessionToken();
      this.setPaymentStatus("waiting_for_input");
      try {
        const response = await this.call(Sdk.CollectPaymentMethod, {
          sessionToken: token,
          params: { paymentIntentId: intent.id, amount: BigInt(intent.amount ?? 0), currency: intent.currency ?? "", skipTipping, customerCancellationEnabled: customerCancellation },
        }, { timeoutMs: 0 });
        return {
          paymentIntent: objects.paymentIntent({
            ...intent, id: response.paymentIntentId || intent.id, status: "requires_confirmation", payment_method: objects.paymentMethod(response.paymentMethod),
          }),
        };
      } finally {
        this.setPaymentStatus(this.connectedReader ? "ready" : "not_ready");
      }
    });
  }

  /** Stops a collectPaymentMethod in progress (which then resolves with COMMAND_CANCELED): `{}`. */
  cancelCollectPaymentMethod() {
    return this.result(async () => {
      await this.call(Sdk.CancelCollectPaymentMethod, { sessionToken: await this.sessionToken() });
      return {};
    });
  }

  /**
   * Processes (confirms) the payment intent collectPaymentMethod answered with:
   * `{ paymentIntent }` with the reader's status ("succeeded") and `amount_received`.
   */
  processPayment(paymentIntent, options) {
    return this.readerCommand(async () => {
      const intent = objects.intentArgument(paymentIntent, "processPayment's paymentIntent");
      objects.optionsArgument(options, "processPayment's options");
      const token = await this.readerSessionToken();
      this.setPaymentStatus("processing");
      try {
        const response = await this.call(Sdk.ConfirmPaymentIntent, { sessionToken: token, params: { paymentIntentId: intent.id } });
        const result = response.result ?? {};
        const details = typeof paymentIntent === "object" && paymentIntent !== null ? paymentIntent.sdk_payment_details ?? null : null;
        return {
          paymentIntent: objects.paymentIntent({
            ...intent,
            id: result.paymentIntentId || intent.id,
            status: result.status || "succeeded",
            amount_received: objects.safeNumber(result.amountReceived, "amount_received"),
            payment_method: details,
          }),
        };
      } finally {
        this.setPaymentStatus(this.connectedReader ? "ready" : "not_ready");
      }
    });
  }

  /** Shows a cart: `{ type: "cart", cart: { line_items: [{ description, amount, quantity }], tax, total, currency } }`. */
  setReaderDisplay(display) {
    return this.readerCommand(async () => {
      const cart = objects.cartArgument(display, "setReaderDisplay's display");
      await this.call(Sdk.SetReaderDisplay, { sessionToken: await this.readerSessionToken(), cart });
      return {};
    });
  }

  /** Clears the reader's display: `{}`. */
  clearReaderDisplay() {
    return this.readerCommand(async () => {
      await this.call(Sdk.ClearReaderDisplay, { sessionToken: await this.readerSessionToken() });
      return {};
    });
  }

  /** Reboots the connected reader (it is then lost with reason "reboot_requested"): `{}`. */
  rebootReader() {
    return this.readerCommand(async () => {
      await this.call(Sdk.RebootReader, { sessionToken: await this.readerSessionToken() });
      return {};
    });
  }

  /** Installs the reader's pending software update: `{ version }` ("" when there was none). */
  installAvailableUpdate() {
    return this.readerCommand(async () => {
      const response = await this.call(Sdk.InstallAvailableUpdate, { sessionToken: await this.readerSessionToken() }, { timeoutMs: 0 });
      return { version: response.version };
    });
  }

  /** The reader connection's status: "connecting", "connected" or "not_connected". */
  getConnectionStatus() {
    return this.connectionStatus;
  }

  /** The payment's status: "not_ready", "ready", "waiting_for_input" or "processing". */
  getPaymentStatus() {
    return this.paymentStatus;
  }

  /** The gateway connection's status: "connecting", "connected" or "not_connected". */
  getGatewayStatus() {
    return this.connection?.getStatus() ?? "not_connected";
  }

  /** The connected reader (a `terminal.reader`), or null. */
  getConnectedReader() {
    return this.connectedReader;
  }

  /** The open session, `{ session_id, lease_ms, resumed }`, or null. */
  getSession() {
    return this.session ? { session_id: this.session.sessionId, lease_ms: this.session.leaseMs, resumed: this.session.resumed } : null;
  }

  /** Forgets the session, so the next call opens a new one (asking for a new connection token): `{}`. */
  clearCachedCredentials() {
    return this.result(async () => {
      this.session = null;
      this.stopBackground();
      return {};
    });
  }

  /** Closes the session (the reader is released) and the connection: `{}`. */
  close() {
    return this.result(async () => {
      if (this.closed) return {};
      const session = this.session;
      this.closed = true;
      this.stopBackground();
      try {
        if (session) await this.call(Sdk.CloseSession, { sessionToken: session.sessionToken });
      } finally {
        if (!this.options.connection) this.connection.close();
        this.connectedReader = null;
        this.setConnectionStatus("not_connected");
        this.setPaymentStatus("not_ready");
      }
      return {};
    });
  }

  // --- the session ------------------------------------------------------------------

  async sessionToken() {
    if (this.closed) throw RPCError.of("CANCELLED_BY_PEER", "the terminal was closed; create a new one");
    if (this.session) return this.session.sessionToken;
    this.sessionOpening ??= this.openSession("").finally(() => { this.sessionOpening = null; });
    return (await this.sessionOpening).sessionToken;
  }

  /**
   * The session token for a reader command, once its arguments passed: after a loss, the
   * loss's error instead. Not async itself: awaiting it takes the same turns as awaiting
   * sessionToken(), so a command and a cancel made right after it leave in that order.
   */
  readerSessionToken() {
    if (this.lostError && !this.connectedReader) return Promise.reject(this.lostError);
    return this.sessionToken();
  }

  /** The page's onFetchConnectionToken, its failures said as such. */
  async connectionToken() {
    let token;
    try {
      token = await this.options.onFetchConnectionToken();
    } catch (error) {
      throw RPCError.of("CONNECTION_TOKEN_INVALID", `onFetchConnectionToken failed: ${error?.message ?? error}`, error);
    }
    if (typeof token !== "string" || token === "") {
      throw RPCError.argument("onFetchConnectionToken", `must resolve to the connection token (a string) your backend created, not ${objects.describe(token)}`);
    }
    return token;
  }

  async openSession(resumeToken) {
    const connectionToken = resumeToken === "" ? await this.connectionToken() : "";
    const response = await this.call(Sdk.OpenSession, {
      connectionToken, posDeviceId: this.posDeviceId, laneLabel: this.options.laneLabel ?? "", resumeToken,
    }, { idempotent: resumeToken !== "" });
    this.session = { sessionId: response.sessionId, sessionToken: response.sessionToken, leaseMs: objects.safeNumber(response.leaseMs, "lease_ms"), resumed: response.resumed };
    if (response.connectedReader) {
      this.connectedReader = objects.reader(response.connectedReader, this.connectedReader?.discovery_id ?? null);
      this.setConnectionStatus("connected");
      if (this.paymentStatus === "not_ready") this.setPaymentStatus("ready");
    }
    this.startBackground();
    return this.session;
  }

  /** The event subscription and the heartbeats that keep the session's lease. */
  startBackground() {
    this.stopBackground();
    const abort = new AbortController();
    this.subscription = abort;
    const { sessionToken, leaseMs } = this.session;
    const events = this.connection.serverStreaming(Sdk.SubscribeEvents, { sessionToken }, (event) => this.deliver(event), { signal: abort.signal });
    events.then(
      () => this.subscriptionEnded(abort, null),
      (error) => this.subscriptionEnded(abort, error),
    );
    if (leaseMs > 0) {
      this.heartbeat = setInterval(() => {
        this.call(Sdk.Heartbeat, { sessionToken }, { idempotent: true }).catch(() => {});
      }, Math.max(1000, leaseMs / 3));
    }
  }

  stopBackground() {
    this.subscription?.abort();
    this.subscription = null;
    clearInterval(this.heartbeat);
  }

  /** The event stream ended: after a dropped connection, resume the session with its token. */
  async subscriptionEnded(abort, error) {
    if (this.subscription !== abort || this.closed) return;
    this.subscription = null;
    clearInterval(this.heartbeat);
    if (!(error instanceof RPCError) || !RESUMABLE.has(error.reason) || !this.session) return;
    const hadReader = this.connectedReader;
    const deadline = Date.now() + Math.max(this.session.leaseMs, 1000);
    let backoff = this.options.resumeBackoffMs ?? 100;
    while (!this.closed && Date.now() < deadline) {
      try {
        const session = await this.openSession(this.session.sessionToken);
        if (hadReader && !session.resumed) {
          this.readerLost({ readerId: hadReader.id, reason: DisconnectReason.SESSION_EXPIRED, message: "the session expired while the connection was down; connect the reader again" });
        } else if (hadReader && !this.connectedReader) {
          this.readerLost({ readerId: hadReader.id, reason: DisconnectReason.READER_LOST, message: "the session was resumed without its reader: it was released while the lane was away" });
        }
        this.notify("onSessionResumed", { session: this.getSession() });
        return;
      } catch (caught) {
        if (!(caught instanceof RPCError) || !caught.isRetryableForIdempotentCall) {
          this.session = null;
          if (hadReader) this.readerLost({ readerId: hadReader.id, reason: DisconnectReason.SESSION_EXPIRED, message: `the session could not be resumed: ${caught.message}` });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, 2000);
      }
    }
  }

  /** A SessionEvent from the gateway, told to the page in its own shape; never throws into the stream. */
  deliver(event) {
    try {
      this.deliverEvent(event);
    } catch (error) {
      console.error("readergateway: a session event could not be told to the page", error);
    }
  }

  deliverEvent(event) {
    if (event.sequence <= this.lastSequence && event.sequence !== 0n) return;
    this.lastSequence = event.sequence;
    const at = objects.safeNumber(event.atUnixMs, "at");
    if (event.disconnected) {
      const lost = event.disconnected.reason !== DisconnectReason.REQUESTED ? this.readerLost(event.disconnected) : null;
      this.notify("onReaderEvent", { type: "disconnected", at, reader_id: event.disconnected.readerId, reason: objects.disconnectReason(event.disconnected.reason), ...(lost ?? {}) });
      return;
    }
    if (event.readerStatusChanged?.reader) {
      const reader = objects.reader(event.readerStatusChanged.reader, this.connectedReader?.discovery_id ?? null);
      if (this.connectedReader?.id === reader.id) this.connectedReader = reader;
      this.notify("onReaderEvent", { type: "reader_status_changed", at, reader });
    } else if (event.reconnectStarted) {
      this.notify("onReaderEvent", { type: "reconnect_started", at, reader_id: event.reconnectStarted.readerId });
    } else if (event.reconnectSucceeded) {
      this.notify("onReaderEvent", { type: "reconnect_succeeded", at, reader_id: event.reconnectSucceeded.readerId });
    } else if (event.reconnectFailed) {
      this.notify("onReaderEvent", { type: "reconnect_failed", at, reader_id: event.reconnectFailed.readerId, error: RPCError.fromStatus(event.reconnectFailed.status) });
    } else if (event.updateAvailable) {
      this.notify("onReaderEvent", { type: "update_available", at, reader_id: event.updateAvailable.readerId, update: objects.softwareUpdate(event.updateAvailable.update) });
    } else if (event.updateStarted) {
      this.notify("onReaderEvent", { type: "update_started", at, reader_id: event.updateStarted.readerId, update: objects.softwareUpdate(event.updateStarted.update) });
    } else if (event.updateProgress) {
      this.notify("onReaderEvent", { type: "update_progress", at, reader_id: event.updateProgress.readerId, progress: event.updateProgress.progress });
    }
  }

  /** The connected reader was lost: one error for the loss, told once, kept for the next command. */
  readerLost(disconnected) {
    const reader = this.connectedReader;
    if (reader && disconnected.readerId && reader.id !== disconnected.readerId) return null;
    this.connectedReader = null;
    this.setConnectionStatus("not_connected");
    this.setPaymentStatus("not_ready");
    const reason = objects.disconnectReason(disconnected.reason);
    const takenBy = reason === "replaced" ? { lane_label: disconnected.takenByLaneLabel ?? "", pos_device_id: disconnected.takenByPosDeviceId ?? "" } : null;
    const message = disconnected.message || (takenBy ? `${takenBy.lane_label || "another lane"} took the reader` : `the reader was disconnected (${reason})`);
    const error = objects.lossError(reason, message);
    this.lostError = error;
    this.losses += 1;
    const event = { error, reason, reader, reader_id: disconnected.readerId || reader?.id || null, taken_by: takenBy, message };
    this.notify("onUnexpectedReaderDisconnect", event);
    return { error, taken_by: takenBy, message };
  }

  setConnectionStatus(status) {
    if (status === this.connectionStatus) return;
    this.connectionStatus = status;
    this.notify("onConnectionStatusChange", { status });
  }

  setPaymentStatus(status) {
    if (status === this.paymentStatus) return;
    this.paymentStatus = status;
    this.notify("onPaymentStatusChange", { status });
  }

  /** Calls the page's callback; what it throws is logged, never thrown into the library. */
  notify(name, event) {
    const callback = this.options[name];
    if (typeof callback !== "function") return;
    try {
      callback(event);
    } catch (error) {
      console.error(`readergateway: the page's ${name} threw`, error);
    }
  }

  // --- calls ----------------------------------------------------------------------

  call(method, request, options = {}) {
    const timeoutMs = options.timeoutMs ?? this.callTimeoutMs;
    return this.connection.unary(method, request, { ...options, timeoutMs: timeoutMs > 0 ? timeoutMs : undefined });
  }

  /**
   * A command for the connected reader. After a loss (until the next connect) it resolves
   * with the loss's error, the one the disconnect event carried; one that fails because of
   * a loss told meanwhile does too.
   */
  readerCommand(body) {
    const losses = this.losses;
    return this.result(body).then((outcome) => (outcome.error && this.losses !== losses && this.lostError && outcome.error.argument === undefined ? { error: this.lostError } : outcome));
  }

  /** Runs a method's body: its result, or `{ error }` for anything that went wrong. Never rejects. */
  result(body) {
    if (this.optionsError) return Promise.resolve({ error: this.optionsError });
    return (async () => {
      try {
        return await body();
      } catch (error) {
        if (error instanceof RPCError) return { error };
        return { error: RPCError.of("INTERNAL", `the library failed: ${error?.message ?? error}`, error) };
      }
    })();
  }
}

/** Stripe Terminal JS's entry point: `ReaderGateway.create(options)` (see Terminal.create). */
export const ReaderGateway = Object.freeze({
  create: (options) => Terminal.create(options),
});
