// A point-of-sale lane in a browser, shaped like Stripe Terminal JS: methods resolve to a
// result object ({ discoveredReaders }, { reader }, {}) or to { error }, never reject; the
// error is an RPCError whose `reason` is the gateway's ErrorReason ("READER_BUSY", ...).
// What this gateway adds: who took a reader (onUnexpectedReaderDisconnect's takenBy), and
// a session that survives a network blip (the client resumes it with its token and keeps
// its reader).
import { Sdk, DisconnectReason } from "./generated/readergateway/v1/sdk.js";
import { GatewayConnection } from "./connection.js";
import { RPCError } from "./errors.js";

const RESUMABLE = new Set(["CONNECTION_LOST", "GOING_AWAY", "KEEPALIVE_TIMEOUT", "STORE_UNAVAILABLE"]);

export class Terminal {
  /**
   * Options (Stripe's StripeTerminal.create, plus the gateway's):
   * - `url`: the gateway's WebSocket URL (wss://host:port/readergateway/v1/websocket)
   * - `onFetchConnectionToken`: async () => a connection token your backend issued
   * - `posDeviceId`, `laneLabel`: who this lane is (shown to the lane it takes a reader from)
   * - `onUnexpectedReaderDisconnect(event)`: the reader was lost, taken by another lane
   *   (`event.reason === "REPLACED"`, `event.takenBy = { laneLabel, posDeviceId }`),
   *   released by an admin, rebooted...; `event.error` is an RPCError saying it
   * - `onConnectionStatusChange({ status })`: the reader connection's status
   * - `onSessionResumed({ session })`: the session came back after a dropped connection
   * - `onReaderEvent(event)`: every SessionEvent, decoded
   * - `callTimeoutMs` (default 15000), `connection` (a shared GatewayConnection), and the
   *   Channel's options (`keepaliveTimeMs`, `keepaliveTimeoutMs`, `WebSocket`, ...)
   */
  static create(options) {
    return new Terminal(options);
  }

  constructor(options) {
    if (!options?.onFetchConnectionToken) throw new TypeError("Terminal.create needs onFetchConnectionToken");
    this.options = options;
    this.connection = options.connection ?? new GatewayConnection(options.url, options);
    this.callTimeoutMs = options.callTimeoutMs ?? 15000;
    this.session = null; // { sessionId, sessionToken, leaseMs, resumed }
    this.sessionOpening = null;
    this.connectedReader = null;
    this.connectionStatus = "not_connected";
    this.subscription = null;
    this.closed = false;
    this.lastSequence = 0n;
  }

  // --- Stripe Terminal's surface ------------------------------------------------

  /** Every reader of a location; pass one of them to connectReader. */
  async discoverReaders({ location, simulated = false, timeoutMs } = {}) {
    return this.result(async () => {
      const token = await this.sessionToken();
      const response = await this.call(Sdk.DiscoverReaders, { sessionToken: token, locationId: location ?? "", simulated, timeoutMs: BigInt(timeoutMs ?? 0) });
      return { discoveredReaders: response.readers.map((reader) => ({ ...reader, discoveryId: response.discoveryId })) };
    });
  }

  /** Cancels a discovery still waiting for its answer. */
  async cancelDiscovery() {
    return this.result(async () => {
      await this.call(Sdk.CancelDiscovery, { sessionToken: await this.sessionToken() });
      return {};
    });
  }

  /**
   * Connects a reader from the latest discovery. With `fail_if_in_use`, a reader in the
   * middle of another lane's transaction is refused with READER_BUSY instead of taken.
   */
  async connectReader(reader, { fail_if_in_use = false } = {}) {
    this.setConnectionStatus("connecting");
    const outcome = await this.result(async () => {
      const response = await this.call(Sdk.ConnectReader, {
        sessionToken: await this.sessionToken(),
        readerId: reader.id,
        discoveryId: reader.discoveryId ?? "",
        failIfInUse: fail_if_in_use,
        posDeviceId: this.options.posDeviceId ?? "",
        laneLabel: this.options.laneLabel ?? "",
        locationId: reader.locationId ?? "",
      });
      this.connectedReader = response.reader ?? reader;
      return { reader: this.connectedReader, replacedOtherSession: response.replacedOtherSession, generation: response.generation };
    });
    this.setConnectionStatus(this.connectedReader ? "connected" : "not_connected");
    return outcome;
  }

  /** Gives the reader back. */
  async disconnectReader() {
    return this.result(async () => {
      await this.call(Sdk.DisconnectReader, { sessionToken: await this.sessionToken() });
      this.connectedReader = null;
      this.setConnectionStatus("not_connected");
      return {};
    });
  }

  /** Collects a payment method for a payment intent on the connected reader. */
  async collectPaymentMethod({ paymentIntentId, amount, currency, skipTipping = false, customerCancellationEnabled = false }) {
    return this.result(async () => {
      const response = await this.call(Sdk.CollectPaymentMethod, {
        sessionToken: await this.sessionToken(),
        params: { paymentIntentId, amount: BigInt(amount ?? 0), currency: currency ?? "", skipTipping, customerCancellationEnabled },
      }, { timeoutMs: 0 });
      return { paymentIntent: { id: response.paymentIntentId, paymentMethod: response.paymentMethod } };
    });
  }

  /** Stops a collectPaymentMethod in progress (it then resolves with COMMAND_CANCELED). */
  async cancelCollectPaymentMethod() {
    return this.result(async () => {
      await this.call(Sdk.CancelCollectPaymentMethod, { sessionToken: await this.sessionToken() });
      return {};
    });
  }

  /** Confirms a payment intent whose payment method was collected. */
  async confirmPaymentIntent({ paymentIntentId }) {
    return this.result(async () => {
      const response = await this.call(Sdk.ConfirmPaymentIntent, { sessionToken: await this.sessionToken(), params: { paymentIntentId } });
      const result = response.result ?? {};
      return { paymentIntent: { id: result.paymentIntentId, status: result.status, amountReceived: result.amountReceived } };
    });
  }

  /** Shows a cart: Stripe's { type: "cart", cart: { line_items, tax, total, currency } }. */
  async setReaderDisplay(display) {
    return this.result(async () => {
      const cart = display?.cart ?? {};
      await this.call(Sdk.SetReaderDisplay, {
        sessionToken: await this.sessionToken(),
        cart: {
          currency: cart.currency ?? "",
          lineItems: (cart.line_items ?? cart.lineItems ?? []).map((item) => ({
            description: item.description ?? "", quantity: BigInt(item.quantity ?? 1), amount: BigInt(item.amount ?? 0),
          })),
          tax: BigInt(cart.tax ?? 0),
          total: BigInt(cart.total ?? 0),
        },
      });
      return {};
    });
  }

  /** Clears the reader's display. */
  async clearReaderDisplay() {
    return this.result(async () => {
      await this.call(Sdk.ClearReaderDisplay, { sessionToken: await this.sessionToken() });
      return {};
    });
  }

  /** Reboots the connected reader (it is lost with reason REBOOT_REQUESTED). */
  async rebootReader() {
    return this.result(async () => {
      await this.call(Sdk.RebootReader, { sessionToken: await this.sessionToken() });
      return {};
    });
  }

  /** Installs the reader's pending software update; resolves with its version. */
  async installAvailableUpdate() {
    return this.result(async () => {
      const response = await this.call(Sdk.InstallAvailableUpdate, { sessionToken: await this.sessionToken() }, { timeoutMs: 0 });
      return { version: response.version };
    });
  }

  /** The reader connection's status: "connecting", "connected" or "not_connected". */
  getConnectionStatus() {
    return this.connectionStatus;
  }

  /** The gateway connection's status: "connecting", "connected" or "not_connected". */
  getGatewayStatus() {
    return this.connection.getStatus();
  }

  /** The connected reader, or null. */
  getConnectedReader() {
    return this.connectedReader;
  }

  /** The open session ({ sessionId, sessionToken, leaseMs, resumed }), or null. */
  getSession() {
    return this.session;
  }

  /** Forgets the session token, so the next call opens a new session. */
  clearCachedCredentials() {
    this.session = null;
  }

  /** Closes the session (the reader is released) and the connection. */
  async close() {
    if (this.closed) return {};
    const outcome = this.session
      ? await this.result(async () => {
        await this.call(Sdk.CloseSession, { sessionToken: this.session.sessionToken });
        return {};
      })
      : {};
    this.closed = true;
    this.stopBackground();
    if (!this.options.connection) this.connection.close();
    return outcome;
  }

  // --- the session ------------------------------------------------------------------

  async sessionToken() {
    if (this.closed) throw RPCError.of("CANCELLED_BY_PEER", "the terminal was closed");
    if (this.session) return this.session.sessionToken;
    this.sessionOpening ??= this.openSession("").finally(() => { this.sessionOpening = null; });
    return (await this.sessionOpening).sessionToken;
  }

  async openSession(resumeToken) {
    const connectionToken = await this.options.onFetchConnectionToken();
    const response = await this.call(Sdk.OpenSession, {
      connectionToken, posDeviceId: this.options.posDeviceId ?? "", laneLabel: this.options.laneLabel ?? "", resumeToken,
    }, { idempotent: resumeToken !== "" });
    this.session = { sessionId: response.sessionId, sessionToken: response.sessionToken, leaseMs: Number(response.leaseMs), resumed: response.resumed };
    if (response.connectedReader) {
      this.connectedReader = response.connectedReader;
      this.setConnectionStatus("connected");
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
          this.readerLost({ readerId: hadReader.id, reason: DisconnectReason.SESSION_EXPIRED, message: "the session expired while the connection was down; open a new one and reconnect the reader" });
        } else if (hadReader && !this.connectedReader) {
          this.readerLost({ readerId: hadReader.id, reason: DisconnectReason.READER_LOST, message: "the session was resumed without its reader: it was released while the lane was away" });
        }
        this.options.onSessionResumed?.({ session });
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

  deliver(event) {
    if (event.sequence <= this.lastSequence && event.sequence !== 0n) return;
    this.lastSequence = event.sequence;
    this.options.onReaderEvent?.(event);
    if (event.disconnected) {
      if (event.disconnected.reason === DisconnectReason.REQUESTED) return;
      this.readerLost(event.disconnected);
    } else if (event.readerStatusChanged?.reader && this.connectedReader?.id === event.readerStatusChanged.reader.id) {
      this.connectedReader = event.readerStatusChanged.reader;
    }
  }

  readerLost(disconnected) {
    const reader = this.connectedReader;
    if (reader && disconnected.readerId && reader.id !== disconnected.readerId) return;
    this.connectedReader = null;
    this.setConnectionStatus("not_connected");
    const reason = DisconnectReason.nameOf(disconnected.reason) ?? `UNKNOWN_${disconnected.reason}`;
    const takenBy = reason === "REPLACED" ? { laneLabel: disconnected.takenByLaneLabel ?? "", posDeviceId: disconnected.takenByPosDeviceId ?? "" } : null;
    const message = disconnected.message || (takenBy ? `${takenBy.laneLabel || "another lane"} took the reader` : `the reader was disconnected (${reason})`);
    const error = RPCError.of(reason === "REPLACED" ? "READER_CONNECTED_TO_ANOTHER_SESSION" : "NOT_CONNECTED_TO_READER", message);
    this.options.onUnexpectedReaderDisconnect?.({ error, reader, readerId: disconnected.readerId, reason, takenBy, message });
  }

  setConnectionStatus(status) {
    if (status === this.connectionStatus) return;
    this.connectionStatus = status;
    this.options.onConnectionStatusChange?.({ status });
  }

  // --- calls ----------------------------------------------------------------------

  call(method, request, options = {}) {
    const timeoutMs = options.timeoutMs ?? this.callTimeoutMs;
    return this.connection.unary(method, request, { ...options, timeoutMs: timeoutMs > 0 ? timeoutMs : undefined });
  }

  async result(body) {
    try {
      return await body();
    } catch (error) {
      if (error instanceof RPCError) return { error };
      return { error: RPCError.of("INTERNAL", `the client failed: ${error?.message ?? error}`, error) };
    }
  }
}
