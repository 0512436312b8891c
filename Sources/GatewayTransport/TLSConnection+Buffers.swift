import CGatewayLinux
import CGatewayOpenSSL

/// OpenSSL's record buffers (about 17 KiB to read, as much to write) and the handler's per-link
/// buffers: kept while a connection is busy, released once it has been quiet for
/// ``ConnectionLimits/releaseBuffersAfter``, taken again on its next record.
///
/// `SSL_MODE_RELEASE_BUFFERS` frees both buffers after every read that drains them and
/// after every write, and the next read or write allocates them again: two 17 KiB
/// malloc/free pairs per message each way, which the profile put at about 7% of a relaying
/// loop's time (glibc's large-chunk paths: consolidation, unlinking). Instead the
/// connection keeps them, and its loop's buffer sweep frees them with `SSL_free_buffers`
/// once the connection has seen no traffic for the threshold. `SSL_free_buffers` refuses
/// (returns 0) while a buffer holds data — part of a record read, a write not finished — so
/// such a connection stays on the sweep and is tried again on its next pass. With the buffers
/// go the connection's emptied write queue and whatever the handler keeps between messages
/// (``ConnectionHandler/buffersReleased(on:)``).
///
/// The default, 20 ms, is from `make reader-memory` and `make bench` (docs/performance.md,
/// "Idle buffers"): a reader heartbeats every few seconds, so any threshold below its interval
/// frees the buffers between heartbeats. A busy relay's messages mostly come closer together
/// than 20 ms, but not all of them: with 256 lanes on two shared cores a lane's round trip takes
/// 10 to 30 ms, and each release after a longer gap is undone by the next message (both
/// buffers freed and taken again, on both sides of the relay). So each connection keeps its own
/// threshold (``IdleBufferRelease``): doubled, up to 64 times the configured one, while its
/// releases are undone sooner than they were earned, and back to the configured one after a
/// release that lasted.
extension TLSConnection {
    /// Notes that OpenSSL may now hold buffers for this connection (it just read, wrote or
    /// shook hands), so the loop's sweep looks at it. Loop thread only.
    @inline(__always)
    func noteBuffersInUse() {
        guard !buffersTracked, let idle = limits.releaseBuffersAfter else { return }
        buffersTracked = true
        if buffersReleased {
            buffersReleased = false
            bufferRelease.taken(at: loop.now)
        }
        loopState.trackBuffers(of: self, quietFor: idle.nanoseconds)
    }

    /// Whether the connection's buffers were released and no record has been read or written
    /// since. Loop thread only.
    public var recordBuffersReleased: Bool {
        assert(loop.inEventLoop, "TLSConnection.recordBuffersReleased must be read on its event loop")
        return buffersReleased
    }

    /// Frees OpenSSL's buffers if the connection has been quiet long enough and they hold
    /// nothing; returns whether the sweep should keep watching it.
    func releaseBuffersIfQuiet(now: UInt64) -> Bool {
        guard let sslHandle, state != .closed, limits.releaseBuffersAfter != nil else {
            buffersTracked = false
            return false
        }
        // Only between messages of an established connection (a handshake or a close in
        // progress keeps its buffers until it is done), after this connection's own quiet time.
        guard state == .active, now &- lastActivity >= bufferRelease.threshold, bufferedBytes == 0 else { return true }
        // 0: a buffer still holds data (part of a record, an unfinished write); try on the next pass.
        guard SSL_free_buffers(sslHandle) == 1 else {
            counters?.buffersReleaseDeferred.add(1, ordering: .relaxed)
            return true
        }
        buffersTracked = false
        buffersReleased = true
        bufferRelease.released(at: now)
        pending = []
        pendingStart = 0
        counters?.buffersReleased.add(1, ordering: .relaxed)
        handler?.buffersReleased(on: self)
        return false
    }
}

extension TLSLoopState {
    /// Adds a connection to the buffer sweep, arming the sweep if it was idle. Loop thread only.
    func trackBuffers(of connection: TLSConnection, quietFor idle: UInt64) {
        assert(loop.inEventLoop)
        buffersHeld.append(connection)
        bufferSweepPeriod = min(bufferSweepPeriod, max(idle, 1))
        guard !bufferSweepArmed else { return }
        bufferSweepArmed = true
        loop.schedule(after: .nanoseconds(Int64(clamping: bufferSweepPeriod))) { [self] in sweepBuffersOnTimer() }
    }

    private func sweepBuffersOnTimer() {
        sweepBuffers(now: rg_monotonic_nanoseconds())
        if buffersHeld.isEmpty {
            bufferSweepArmed = false
            bufferSweepPeriod = .max
        } else {
            loop.schedule(after: .nanoseconds(Int64(clamping: bufferSweepPeriod))) { [self] in sweepBuffersOnTimer() }
        }
    }

    /// Frees the buffers of connections quiet at `now`; keeps the rest on the sweep. Loop thread only.
    func sweepBuffers(now: UInt64) {
        assert(loop.inEventLoop)
        var kept = 0
        for index in buffersHeld.indices {
            let connection = buffersHeld[index]
            if connection.releaseBuffersIfQuiet(now: now) {
                buffersHeld.swapAt(kept, index)
                kept += 1
            }
        }
        buffersHeld.removeSubrange(kept...)
    }
}

extension TLSServer {
    /// Connections whose buffers were released since start (each release counts; a connection
    /// that wakes up and goes quiet again counts again).
    public var buffersReleasedCount: Int { counters.buffersReleased.load(ordering: .relaxed) }

    /// Releases that `SSL_free_buffers` refused since start because a buffer still held data
    /// (retried on the sweep's next pass).
    public var buffersReleaseDeferredCount: Int { counters.buffersReleaseDeferred.load(ordering: .relaxed) }

    /// Runs every loop's buffer sweep once, now, as if `elapsed` more time had passed:
    /// connections quiet for ``ConnectionLimits/releaseBuffersAfter`` by then release their
    /// buffers. The sweep's own timer is unaffected. For tests and tools that must not wait
    /// for the clock.
    public func sweepIdleBuffers(asIfQuietFor elapsed: Duration = .zero) async {
        for loop in group.loops {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.execute {
                    TLSLoopState.of(loop).sweepBuffers(now: rg_monotonic_nanoseconds() &+ elapsed.nanoseconds)
                    done.resume()
                }
            }
        }
    }
}
