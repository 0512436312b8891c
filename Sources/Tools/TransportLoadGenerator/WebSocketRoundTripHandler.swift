import GatewayTransport
import GatewayWebSocket
import WebSocketLoadClient

/// `--mode websocket-rtt`: the upgrade of the WebSocket binding, then a closed loop of one
/// masked binary message (a protocol frame of `size` bytes, header included) out and the
/// echoed message back, as ``RoundTripHandler`` does with raw bytes.
///
/// `@unchecked Sendable`: every `var` is touched only on the connection's event loop.
final class WebSocketRoundTripHandler: ConnectionHandler, @unchecked Sendable {
    let statistics: LoopStatistics
    let control: RunControl
    let host: String
    /// One protocol frame: the 10-byte header (length, type DATA, no flags, stream 1), then filler.
    let frame: [UInt8]
    private var codec = WebSocketClientCodec()
    private var inbound: [WebSocketClientCodec.Inbound] = []
    private var outbound: [UInt8] = []
    private var sentAt: UInt64 = 0

    init(statistics: LoopStatistics, control: RunControl, size: Int, host: String) {
        self.statistics = statistics
        self.control = control
        self.host = host
        let length = max(0, size - WebSocketBinding.frameHeaderSize)
        var frame: [UInt8] = [UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length), 0, 0, 0, 0, 0, 1]
        frame += [UInt8](repeating: 0x61, count: length)
        self.frame = frame
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        connection.write(WebSocketClientCodec.upgradeRequest(host: host))
    }

    private func send(_ connection: TLSConnection) {
        outbound.removeAll(keepingCapacity: true)
        codec.appendMessage(frame, to: &outbound)
        sentAt = monotonicNanoseconds()
        connection.write(outbound)
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        inbound.removeAll(keepingCapacity: true)
        do { try codec.receive(bytes, into: &inbound) } catch {
            statistics.lastFailure = "\(error)"
            connection.close(graceful: false)
            return
        }
        for item in inbound {
            switch item {
            case .opened:
                control.opened.add(1, ordering: .relaxed)
                send(connection)
            case .message:
                if control.recording.load(ordering: .relaxed) {
                    statistics.roundTrips += 1
                    statistics.latencies.append(UInt32(min(monotonicNanoseconds() - sentAt, UInt64(UInt32.max))))
                }
                if control.stopping.load(ordering: .relaxed) {
                    connection.close(graceful: false)
                } else {
                    send(connection)
                }
            case .ping(let payload):
                outbound.removeAll(keepingCapacity: true)
                codec.appendPong(payload, to: &outbound)
                connection.write(outbound)
            case .closed(let code):
                statistics.lastFailure = "the server closed the WebSocket with \(code.rawValue)"
            }
        }
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        if !control.stopping.load(ordering: .relaxed) {
            control.failed.add(1, ordering: .relaxed)
            statistics.failures += 1
            if statistics.lastFailure == nil { statistics.lastFailure = "\(reason)" }
        }
    }
}
