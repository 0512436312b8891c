import GatewayTransport
import GatewayWebSocket
import GatewayWire
import WebSocketLoadClient

/// ``LeanLane`` over the WebSocket binding, as a browser lane reaches the gateway: TLS, the
/// upgrade on the same port, then one masked binary message per protocol frame (no preface:
/// the subprotocol stands for it). The same closed loop of SetReaderDisplay calls.
///
/// `@unchecked Sendable`: every `var` is touched only on the connection's event loop.
final class LeanWebSocketLane: ConnectionHandler, @unchecked Sendable {
    let request: [UInt8]
    let method = ReaderGatewayV1.Sdk.setReaderDisplay.path
    let counter: RoundTripCounter
    let host: String
    private var codec = WebSocketClientCodec()
    private var frames = FrameConnection(configuration: ConnectionConfiguration(role: .client), now: WireTime.now)
    private var prefaceDropped = false
    private var events: [ConnectionEvent] = []
    private var inbound: [WebSocketClientCodec.Inbound] = []
    /// The protocol frames of one read, back to back.
    private var received: [UInt8] = []
    private var protocolBytes: [UInt8] = []
    private var outbound: [UInt8] = []

    init(sessionToken: String, host: String, counter: RoundTripCounter) {
        request = LeanLane.setReaderDisplayRequest(sessionToken: sessionToken)
        self.host = host
        self.counter = counter
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        connection.write(WebSocketClientCodec.upgradeRequest(host: host))
    }

    private func next() {
        guard !counter.stop.load(ordering: .relaxed) else { return }
        guard let id = try? frames.startCall(method: method, now: WireTime.now) else { return }
        _ = try? frames.send(serialized: request, on: id)
        try? frames.halfClose(id)
    }

    /// A read's protocol frames go to the frame connection in one pass, as on a raw lane: the
    /// codec appends each binary message (one protocol frame) to one reused buffer.
    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        inbound.removeAll(keepingCapacity: true)
        received.removeAll(keepingCapacity: true)
        do { try codec.receive(bytes, appendingMessagesTo: &received, into: &inbound) } catch {
            counter.failures.add(1, ordering: .relaxed)
            connection.close(graceful: false)
            return
        }
        outbound.removeAll(keepingCapacity: true)
        var finished = received.isEmpty ? 0 : receiveFrames()
        for item in inbound {
            switch item {
            case .opened:
                counter.opened.add(1, ordering: .relaxed)
                next()
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
        for _ in 0..<finished { next() }
        if frames.hasOutbound {
            frames.takeOutbound(into: &protocolBytes)
            if !prefaceDropped {
                protocolBytes.removeFirst(FrameHeader.clientPreface.count)
                prefaceDropped = true
            }
            codec.appendProtocolFrames(&protocolBytes, to: &outbound)
        }
        if !outbound.isEmpty { connection.write(outbound) }
    }

    /// The protocol frames in `received`, in one pass; how many calls they ended.
    private func receiveFrames() -> Int {
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

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {}
}
