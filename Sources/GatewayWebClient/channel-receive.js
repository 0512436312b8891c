// What a frame from the gateway does to a Channel (PROTOCOL.md sections 3-9, client side).
import { CallEnd, GoAway, Settings } from "./generated/readergateway/v1/frames.js";
import { Status } from "./generated/readergateway/v1/errors.js";
import { FLAG_ACK, FrameType, encodeFrame } from "./frames.js";
import { RPCError } from "./errors.js";
import { DEFAULTS } from "./channel.js";

/** Applies one decoded frame to `channel`; throws when its payload cannot be decoded. */
export function receiveFrame(channel, frame) {
  const call = channel.calls.get(frame.streamId);
  switch (frame.type) {
    case FrameType.SETTINGS: {
      const settings = Settings.decode(frame.payload);
      for (const key of Object.keys(DEFAULTS)) if (settings[key]) channel.peer[key] = settings[key];
      break;
    }
    case FrameType.MESSAGE: {
      channel.returnCredit(call, frame.payload.length);
      if (call === undefined || call.ended) break;
      let message;
      try {
        message = call.method.responseType.decode(frame.payload);
      } catch (error) {
        channel.fail(call, RPCError.of("MALFORMED_MESSAGE", `the response of ${call.method.path} could not be decoded; is the gateway speaking the same protocol version?`, error), true);
        break;
      }
      call.handlers.message(message);
      break;
    }
    case FrameType.END_OF_CALL: {
      if (call === undefined) break;
      const status = CallEnd.decode(frame.payload).status ?? { code: 0 };
      channel.finish(call, status.code === 0 ? null : RPCError.fromStatus(status));
      break;
    }
    case FrameType.CANCEL: {
      if (call === undefined) break;
      const status = frame.payload.length > 0 ? Status.decode(frame.payload) : { code: 1, reason: 112, message: "the gateway cancelled the call" };
      channel.finish(call, RPCError.fromStatus(status));
      break;
    }
    case FrameType.PING: {
      if (frame.flags & FLAG_ACK) {
        if (channel.pingOutstanding) {
          clearTimeout(channel.pingOutstanding);
          channel.pingOutstanding = null;
          channel.armKeepalive();
          for (const listener of channel.keepaliveListeners) listener();
        }
      } else {
        channel.write(encodeFrame(FrameType.PING, 0, frame.payload, FLAG_ACK));
      }
      break;
    }
    case FrameType.GOAWAY: {
      const goAway = GoAway.decode(frame.payload);
      const status = goAway.status ?? { code: 14, reason: 113 };
      channel.goAwayLastStreamId = goAway.lastStreamId;
      for (const listener of channel.goAwayListeners) listener(goAway);
      const isError = status.reason !== 113;
      for (const waiting of [...channel.waiting]) channel.finish(waiting, RPCError.of("GOING_AWAY", "the gateway is going away: retry on a new connection"));
      for (const open of [...channel.calls.values()]) {
        if (isError) channel.finish(open, RPCError.fromStatus(status));
        else if (open.id > goAway.lastStreamId) channel.finish(open, RPCError.of("GOING_AWAY", "the gateway went away before this call started: retry it on a new connection"));
      }
      if (isError || channel.calls.size === 0) channel.lost(RPCError.fromStatus(status));
      break;
    }
    case FrameType.WINDOW_UPDATE: {
      const increment = new DataView(frame.payload.buffer, frame.payload.byteOffset, frame.payload.byteLength).getUint32(0);
      if (frame.streamId === 0) channel.connectionSendWindow += increment;
      else if (call) call.sendWindow += increment;
      break;
    }
    case FrameType.HALF_CLOSE:
    case FrameType.CALL_START:
      channel.protocolError("a server-only frame type from the gateway");
      break;
    default:
      channel.protocolError(`unknown frame type ${frame.type}`);
  }
}
