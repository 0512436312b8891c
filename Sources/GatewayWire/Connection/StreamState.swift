/// One call's state inside a ``FrameConnection``.
///
/// A stream is "open" from CALL_START until END_OF_CALL or CANCEL; it is
/// removed from the connection then. Inside that span each direction closes on
/// its own: the client's half by HALF_CLOSE, the server's by END_OF_CALL.
struct StreamState: Sendable {
    /// Work waiting for flow-control credit, in order.
    enum Pending: Sendable {
        case message([UInt8])
        case halfClose
        case endOfCall(ReaderGatewayV1.CallEnd)
    }

    /// We may still send MESSAGE frames.
    var localOpen = true
    /// The peer may still send MESSAGE frames.
    var remoteOpen = true
    /// Server: END_OF_CALL is queued behind messages waiting for credit; the
    /// call is over for the owner and late client frames are ignored.
    var ending = false
    /// Bytes we may still send (may go negative by the last frame's overshoot).
    var sendWindow: Int64
    /// Bytes the peer may still send.
    var receiveWindow: Int64
    /// Consumed bytes not yet returned to the peer with WINDOW_UPDATE.
    var pendingCredit: Int64 = 0
    /// When the call's deadline passes; nil for none.
    var deadline: WireTime?
    /// Queued sends, oldest first (from `queueHead`).
    var queue: [Pending] = []
    var queueHead = 0
    /// MESSAGE bytes in `queue`.
    var queuedBytes = 0

    init(sendWindow: Int, receiveWindow: Int, deadline: WireTime?) {
        self.sendWindow = Int64(sendWindow)
        self.receiveWindow = Int64(receiveWindow)
        self.deadline = deadline
    }

    var hasQueue: Bool { queueHead < queue.count }

    mutating func enqueue(_ pending: Pending) {
        if case .message(let bytes) = pending { queuedBytes += bytes.count }
        queue.append(pending)
    }

    mutating func dequeue() -> Pending {
        let pending = queue[queueHead]
        queueHead += 1
        if case .message(let bytes) = pending { queuedBytes -= bytes.count }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        return pending
    }

    var head: Pending? { hasQueue ? queue[queueHead] : nil }
}
