// One channel at a time to the gateway, replaced when it closes or drains, with the Swift
// GatewayConnection's retry rule: a call that certainly was not processed (isRetryable) is
// sent again, an idempotent one after any UNAVAILABLE, up to three times with backoff.
import { Channel } from "./channel.js";
import { RPCError } from "./errors.js";

export class GatewayConnection {
  /**
   * `url`: the gateway's WebSocket URL (wss://host:port/readergateway/v1/websocket).
   * Options are the Channel's, plus `retries` (default 3) and `backoffMs` (default 100,
   * doubled per attempt).
   */
  constructor(url, options = {}) {
    this.url = url;
    this.options = options;
    this.channelPromise = null;
    this.statusListeners = new Set();
    this.status = "not_connected";
    this.closed = false;
  }

  /** "connecting", "connected" or "not_connected" (Stripe's ConnectionStatus). */
  getStatus() {
    return this.status;
  }

  /** Calls `listener(status)` on every change of status. */
  onStatusChange(listener) {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    for (const listener of this.statusListeners) listener(status);
  }

  /** The current channel, connecting when there is none usable. */
  channel() {
    if (this.closed) return Promise.reject(RPCError.of("CANCELLED_BY_PEER", "the connection was closed by the application"));
    if (this.channelPromise === null) {
      this.setStatus("connecting");
      const attempt = Channel.connect(this.url, this.options).then(
        (channel) => {
          if (this.closed) {
            channel.close();
            throw RPCError.of("CANCELLED_BY_PEER", "the connection was closed by the application");
          }
          this.setStatus("connected");
          const forget = () => {
            if (this.channelPromise === attempt) {
              this.channelPromise = null;
              this.setStatus("not_connected");
            }
          };
          channel.onClose(forget);
          channel.onGoAway(forget);
          return channel;
        },
        (error) => {
          if (this.channelPromise === attempt) this.channelPromise = null;
          this.setStatus("not_connected");
          throw error;
        },
      );
      this.channelPromise = attempt;
    }
    return this.channelPromise;
  }

  /** A unary call with retries (see the file comment). Options: the Channel's, plus `idempotent`. */
  async unary(method, request, options = {}) {
    const retries = this.options.retries ?? 3;
    let backoff = this.options.backoffMs ?? 100;
    for (let attempt = 0; ; attempt++) {
      try {
        const channel = await this.channel();
        return await channel.unary(method, request, options);
      } catch (error) {
        const retry = error instanceof RPCError && (error.isRetryable || (options.idempotent && error.isRetryableForIdempotentCall));
        if (!retry || attempt >= retries || this.closed || options.signal?.aborted) throw error;
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff *= 2;
      }
    }
  }

  /** A server-streaming call on the current channel (no retry: the caller resubscribes). */
  async serverStreaming(method, request, onMessage, options = {}) {
    const channel = await this.channel();
    return channel.serverStreaming(method, request, onMessage, options);
  }

  /** Closes the channel; later calls fail. */
  close() {
    this.closed = true;
    const pending = this.channelPromise;
    this.channelPromise = null;
    pending?.then((channel) => channel.close(), () => {});
    this.setStatus("not_connected");
  }
}
