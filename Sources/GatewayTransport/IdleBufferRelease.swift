/// How long one connection must be quiet before its record buffers go
/// (`TLSConnection+Buffers.swift`): the configured ``ConnectionLimits/releaseBuffersAfter`` to
/// start with, longer for a connection whose releases keep being undone at once.
///
/// A release is premature when the next record takes the buffers again sooner than the quiet
/// time that let them go: the connection is busy, its messages merely a little further apart
/// than the threshold (a relayed lane when hundreds of lanes share two cores: a round trip every
/// 10 to 30 ms, so some gaps pass 20 ms), and each such release costs freeing and taking again
/// both 17 KiB buffers and the handler's. Its threshold then doubles, up to ``maximumFactor``
/// times the configured one. A release that lasts at least the threshold (a reader between
/// heartbeats, a lane gone idle) puts it back to the configured one, so a quiet connection
/// releases as soon as before.
///
/// A value kept by its connection, fed on its loop thread; pure (times are monotonic nanoseconds).
struct IdleBufferRelease: Hashable {
    /// The longest threshold, as a multiple of the configured one (20 ms: 1.28 s).
    static let maximumFactor: UInt64 = 64

    /// The configured quiet time, in nanoseconds.
    let configured: UInt64
    /// The quiet time after which this connection's buffers go now, in nanoseconds.
    private(set) var threshold: UInt64
    /// When the buffers last went (meaningful between ``released(at:)`` and ``taken(at:)``).
    private var releasedAt: UInt64 = 0

    /// The longest threshold, in nanoseconds.
    private let longest: UInt64

    init(configured: UInt64) {
        self.configured = max(configured, 1)
        let (product, overflow) = self.configured.multipliedReportingOverflow(by: Self.maximumFactor)
        longest = overflow ? .max : product
        threshold = self.configured
    }

    /// The sweep released the buffers at `now`.
    mutating func released(at now: UInt64) {
        releasedAt = now
    }

    /// A record took the released buffers again at `now`: a premature release doubles the
    /// threshold (up to the cap), one that lasted puts it back to the configured one.
    mutating func taken(at now: UInt64) {
        if now &- releasedAt < threshold {
            threshold = threshold > longest / 2 ? longest : threshold * 2
        } else {
            threshold = configured
        }
    }
}
