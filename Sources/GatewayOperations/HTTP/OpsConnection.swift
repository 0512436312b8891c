import GatewayEventLoop

/// One client of the ops endpoint, from accept to close.
///
/// Every connection carries one request: read the head, write the response,
/// then linger (read and discard) until the client closes or the linger time
/// runs out, so the client sees the response rather than a reset.
struct OpsConnection {
    /// Where the exchange is.
    enum Phase {
        /// Reading the request head.
        case reading
        /// Writing the response; `written` bytes of `outbound` are sent.
        case writing(outbound: [UInt8], written: Int)
        /// Response sent and write side shut; discarding input until EOF.
        case lingering
    }

    let fd: Int32
    /// Unique for the life of the loop (descriptors are reused): the admission's key.
    let id: UInt64
    var phase: Phase = .reading
    var inbound: [UInt8] = []
    /// When the current phase gives up: the request deadline while reading
    /// and writing, the linger time after.
    var deadline: ContinuousClock.Instant
    /// The loop timer armed for ``deadline``.
    var deadlineTimer: ScheduledTask?
}
