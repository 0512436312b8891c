import GatewayEventLoop

/// The TLS connections' bookkeeping on one event loop: reads to continue, writes to flush,
/// OpenSSL buffers to sweep, closes counted towards giving memory back.
///
/// One per loop (``EventLoop/attached(_:make:)``), run by the loop every tick as its
/// ``EventLoopTickHook``: reads that used up their budget continue after the tick's events
/// (the edge-triggered obligation, see `TLSConnection.readAvailable`), and the bytes written
/// during the tick go out before the loop sleeps, several writes to one connection as one
/// `SSL_write`.
///
/// `@unchecked Sendable` so the loop's timers can capture it: every property is touched only on
/// ``loop``'s thread.
final class TLSLoopState: EventLoopTickHook, @unchecked Sendable {
    unowned let loop: EventLoop
    /// Connections that ran out of read budget (or resumed after backpressure) and read again next tick.
    var continueReading: [TLSConnection] = []
    /// Connections with bytes queued by `write` during this tick, flushed before the loop sleeps.
    var flushList: [TLSConnection] = []
    /// Connections whose OpenSSL buffers may be held (see `TLSConnection+Buffers.swift`).
    var buffersHeld: [TLSConnection] = []
    /// Whether the buffer sweep is scheduled.
    var bufferSweepArmed = false
    /// Time between two passes of the sweep: the shortest quiet time of the connections on it.
    var bufferSweepPeriod: UInt64 = .max
    /// Server connections closed since the allocator last gave memory back (`TLSLoopState+Memory.swift`).
    var closedSinceTrim = 0
    /// Whether a trim is scheduled.
    var trimScheduled = false

    private init(loop: EventLoop) { self.loop = loop }

    /// The state of `loop`, made on first use. Loop thread only.
    static func of(_ loop: EventLoop) -> TLSLoopState {
        loop.attached(TLSLoopState.self) { TLSLoopState(loop: loop) }
    }

    func afterEvents() {
        guard !continueReading.isEmpty else { return }
        let batch = continueReading
        continueReading.removeAll(keepingCapacity: true)
        for connection in batch {
            connection.continueReadingScheduled = false
            connection.readAvailable()
        }
    }

    func beforeSleep() {
        while !flushList.isEmpty {
            let batch = flushList
            flushList.removeAll(keepingCapacity: true)
            for connection in batch {
                connection.flushScheduled = false
                connection.flush()
            }
        }
    }

    var hasWorkLeft: Bool { !continueReading.isEmpty || !flushList.isEmpty }

    /// Drops `connection` from this loop: its epoll registration and the lists.
    func forget(_ connection: TLSConnection) {
        assert(loop.inEventLoop)
        loop.deregister(fd: connection.fd)
        continueReading.removeAll { $0 === connection }
        flushList.removeAll { $0 === connection }
        buffersHeld.removeAll { $0 === connection }
    }
}
