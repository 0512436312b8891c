import CGatewayLinux
import CGatewayOpenSSL

/// OpenSSL's record buffers (about 17 KiB to read, as much to write): kept while a
/// connection is busy, released once it has been quiet for a moment.
///
/// `SSL_MODE_RELEASE_BUFFERS` frees both buffers after every read that drains them and
/// after every write, and the next read or write allocates them again: two 17 KiB
/// malloc/free pairs per message each way, which the profile put at about 7% of a relaying
/// loop's time (glibc's large-chunk paths: consolidation, unlinking). Instead the
/// connection keeps them, and its loop's buffer sweep frees them with `SSL_free_buffers`
/// once the connection has seen no traffic for ``TLSLoopState/bufferIdleNanoseconds``. An
/// idle connection still holds no record buffers, a few tens of milliseconds after its
/// last read or write instead of at once.
extension TLSConnection {
    /// Notes that OpenSSL may now hold buffers for this connection (it just read, wrote or
    /// shook hands), so the loop's sweep looks at it. Loop thread only.
    @inline(__always)
    func noteBuffersInUse() {
        guard !buffersTracked else { return }
        buffersTracked = true
        loopState.trackBuffers(of: self)
    }

    /// Frees OpenSSL's buffers if the connection has been quiet long enough and they hold
    /// nothing; returns whether the sweep should keep watching it.
    func releaseBuffersIfQuiet(now: UInt64, quietFor idle: UInt64) -> Bool {
        guard let sslHandle, state != .closed else {
            buffersTracked = false
            return false
        }
        // Only between messages of an established connection (a handshake or a close in
        // progress keeps its buffers until it is done).
        guard state == .active, now &- lastActivity >= idle, bufferedBytes == 0 else { return true }
        // 0: a buffer still holds data (unread records, an unfinished write); try later.
        guard SSL_free_buffers(sslHandle) == 1 else { return true }
        buffersTracked = false
        return false
    }
}

extension TLSLoopState {
    /// How long a connection must be quiet before the sweep frees its OpenSSL buffers.
    static let bufferIdleNanoseconds: UInt64 = 20_000_000

    /// Adds a connection to the buffer sweep, arming the sweep if it was idle. Loop thread only.
    func trackBuffers(of connection: TLSConnection) {
        assert(loop.inEventLoop)
        buffersHeld.append(connection)
        guard !bufferSweepArmed else { return }
        bufferSweepArmed = true
        loop.schedule(after: .nanoseconds(Int64(Self.bufferIdleNanoseconds))) { [self] in sweepBuffers() }
    }

    /// Frees the buffers of quiet connections; re-arms while some are still busy.
    private func sweepBuffers() {
        let current = rg_monotonic_nanoseconds()
        var kept = 0
        for index in buffersHeld.indices {
            let connection = buffersHeld[index]
            if connection.releaseBuffersIfQuiet(now: current, quietFor: Self.bufferIdleNanoseconds) {
                buffersHeld.swapAt(kept, index)
                kept += 1
            }
        }
        buffersHeld.removeSubrange(kept...)
        if buffersHeld.isEmpty {
            bufferSweepArmed = false
        } else {
            loop.schedule(after: .nanoseconds(Int64(Self.bufferIdleNanoseconds))) { [self] in sweepBuffers() }
        }
    }
}
