import GatewayTransport
import GatewayWebSocket
import GatewayWire
import WebSocketLoadClient

/// ``LeanLane`` over the WebSocket binding, as a browser lane reaches the gateway: TLS, the
/// upgrade on the same port, then one masked binary message per protocol frame (no preface:
/// the subprotocol stands for it). The same closed loop of SetReaderDisplay calls.
///
/// A read's protocol frames go to the frame connection in one pass, as on a raw lane: the codec
/// appends each binary message (one protocol frame) to one reused buffer. The lane's state is
/// one struct changed in one access per read (each `var` of a class read or written is an
/// exclusivity check of its own).
///
/// `@unchecked Sendable`: `state` is touched only on the connection's event loop.
final class LeanWebSocketLane: ConnectionHandler, @unchecked Sendable {
    let host: String
    private var state: LaneState

    init(sessionToken: String, host: String, counter: RoundTripCounter) {
        self.host = host
        state = LaneState(request: LeanLane.setReaderDisplayRequest(sessionToken: sessionToken), counter: counter)
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        connection.write(WebSocketClientCodec.upgradeRequest(host: host))
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        guard state.receive(bytes) else {
            connection.close(graceful: false)
            return
        }
        if !state.outbound.isEmpty { connection.write(state.outbound) }
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {}
}

/// Everything a WebSocket lane changes, on its connection's loop.
private struct LaneState {
    let request: [UInt8]
    let method = ReaderGatewayV1.Sdk.setReaderDisplay.path
    let counter: RoundTripCounter
    var codec = WebSocketClientCodec()
    var frames = FrameConnection(configuration: ConnectionConfiguration(role: .client), now: WireTime.now)
    var prefaceDropped = false
    var events: [ConnectionEvent] = []
    var inbound: [WebSocketClientCodec.Inbound] = []
    /// The protocol frames of one read, back to back.
    var received: [UInt8] = []
    var protocolBytes: [UInt8] = []
    /// What to write after the read: masked messages, pongs.
    var outbound: [UInt8] = []

    init(request: [UInt8], counter: RoundTripCounter) {
        self.request = request
        self.counter = counter
    }

    /// One read: the calls it ended counted and as many started; false when the gateway broke
    /// the protocol (close the connection).
    mutating func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        inbound.removeAll(keepingCapacity: true)
        received.removeAll(keepingCapacity: true)
        outbound.removeAll(keepingCapacity: true)
        do { try codec.receive(bytes, appendingMessagesTo: &received, into: &inbound) } catch {
            counter.failures.add(1, ordering: .relaxed)
            return false
        }
        var finished = received.isEmpty ? 0 : receiveFrames()
        for item in inbound {
            switch item {
            case .opened:
                counter.opened.add(1, ordering: .relaxed)
                finished += 1  // the first call
            case .message(let frame):
                // Not produced by receive(_:appendingMessagesTo:into:); fed all the same.
                received = frame
                finished += receiveFrames()
            case .ping(let payload):
                codec.appendPong(payload, to: &outbound)
            case .closed:
                if !counter.stop.load(ordering: .relaxed) { counter.failures.add(1, ordering: .relaxed) }
            }
        }
        if !counter.stop.load(ordering: .relaxed) {
            for _ in 0..<finished { startCall() }
        }
        if frames.hasOutbound {
            frames.takeOutbound(into: &protocolBytes)
            if !prefaceDropped {
                protocolBytes.removeFirst(FrameHeader.clientPreface.count)
                prefaceDropped = true
            }
            codec.appendProtocolFrames(&protocolBytes, to: &outbound)
        }
        return true
    }

    private mutating func startCall() {
        guard let id = try? frames.startCall(method: method, now: WireTime.now) else { return }
        _ = try? frames.send(serialized: request, on: id)
        try? frames.halfClose(id)
    }

    /// The protocol frames in `received`, in one pass; how many calls they ended.
    private mutating func receiveFrames() -> Int {
        var finished = 0
        events.removeAll(keepingCapacity: true)
        received.withUnsafeBytes { frames.receive($0, now: WireTime.now, into: &events) }
        for event in events {
            switch event {
            case .message(let id, let payload):
                frames.messageConsumed(id, byteCount: payload.count)
            case .callEnded(_, let end):
                if end.status?.code ?? .ok == .ok {
                    if counter.measuring.load(ordering: .relaxed) { counter.count.add(1, ordering: .relaxed) }
                    counter.all.add(1, ordering: .relaxed)
                } else {
                    counter.failures.add(1, ordering: .relaxed)
                }
                finished += 1
            default:
                break
            }
        }
        return finished
    }
}
