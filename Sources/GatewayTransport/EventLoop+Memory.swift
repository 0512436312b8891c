import CGatewayLinux

/// Giving memory back after a wave of connections ends.
///
/// A flood (or a mass reconnect) makes every loop allocate connection objects and TLS state by
/// the thousand; when they close, glibc's malloc keeps the freed memory in its arenas, and the
/// process stays at its peak size for good. After enough closes, a loop asks the allocator to
/// return its free pages (`malloc_trim(0)`, which releases free memory in the middle of every
/// arena, not only at the top), at most once a second per loop, so a steady churn of
/// connections pays a few milliseconds a second at most and an idle gateway nothing.
extension EventLoop {
    /// Server connections a loop closes before it considers giving memory back.
    static let closesBeforeTrim = 1_024
    /// The least time between two trims on one loop.
    static let trimIntervalNanoseconds: UInt64 = 1_000_000_000

    /// Counts a closed server connection. Loop thread only.
    func noteServerConnectionClosed() {
        closedSinceTrim += 1
    }

    /// Returns free memory to the kernel if enough closes happened and the last trim is old enough.
    func trimMemoryIfDue() {
        let current = rg_monotonic_nanoseconds()
        guard current &- lastTrim >= Self.trimIntervalNanoseconds else { return }
        lastTrim = current
        closedSinceTrim = 0
        _ = rg_malloc_trim()
    }
}
