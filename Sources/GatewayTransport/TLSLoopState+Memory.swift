import CGatewayLinux

/// Giving memory back after a wave of connections ends.
///
/// A flood (or a mass reconnect) makes every loop allocate connection objects and TLS state by
/// the thousand; when they close, glibc's malloc keeps the freed memory in its arenas, and the
/// process stays at its peak size for good. Once a loop has closed ``closesBeforeTrim`` server
/// connections, it asks the allocator to return its free pages (`malloc_trim(0)`, which releases
/// free memory in the middle of every arena, not only at the top) a second later, and again every
/// second for as long as connections keep closing, so the memory freed by the wave's last closes
/// goes back too. A steady churn pays a few milliseconds a second at most; an idle gateway, nothing.
extension TLSLoopState {
    /// Server connections a loop closes before it starts giving memory back.
    static let closesBeforeTrim = 1_024
    /// Time between two trims on one loop.
    static let trimInterval = Duration.seconds(1)

    /// Counts a closed server connection. Loop thread only.
    func noteServerConnectionClosed() {
        closedSinceTrim += 1
        guard closedSinceTrim >= Self.closesBeforeTrim, !trimScheduled else { return }
        trimScheduled = true
        loop.schedule(after: Self.trimInterval) { [self] in trimAfterCloses() }
    }

    /// Returns free memory to the kernel; runs again a second later while connections still close.
    private func trimAfterCloses() {
        let closes = closedSinceTrim
        closedSinceTrim = 0
        guard closes > 0 else {
            trimScheduled = false
            return
        }
        _ = rg_malloc_trim()
        loop.schedule(after: Self.trimInterval) { [self] in trimAfterCloses() }
    }
}
