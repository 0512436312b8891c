import CGatewayLinux

/// Moving a connection to another event loop.
///
/// A relay is cheapest when both of its connections live on one loop: a message read on
/// one is written to the other in the same tick, with no hand-over between threads (no
/// eventfd write, no wake-up, no context switch). Which loop accepts a connection is up to
/// the kernel (one `SO_REUSEPORT` listener per loop), so a layer above that learns which
/// connections talk to each other can bring them together with ``move(to:then:)``.
///
/// The move is two steps, one on each loop. On the old loop the connection leaves the
/// epoll set and the loop's lists (reads to continue, bytes to flush, buffers to sweep);
/// its timer entries there find its slot empty and lapse. On the new loop it joins the
/// epoll set — an edge-triggered registration reports data that is already waiting — and
/// reads, so nothing that arrived in between is missed. Bytes queued and not yet written
/// travel with it.
extension TLSConnection {
    /// Whether the connection can move now: active (handshake done, not closing).
    public var isMovable: Bool {
        assert(loop.inEventLoop)
        return state == .active
    }

    /// Moves the connection to `target`; `then` runs on `target` once the connection lives
    /// there, before it reads again. Returns false (nothing changes) if the connection is not
    /// active or already on `target`.
    ///
    /// Old loop's thread only, and never from within one of this connection's own handler
    /// callbacks (the read in progress would go on on the old loop): run it as a task of the
    /// old loop (`execute`). Between the two steps nothing may touch the connection.
    public func move(to target: EventLoop, then: @escaping @Sendable () -> Void) -> Bool {
        assert(loop.inEventLoop, "TLSConnection.move must run on its current event loop")
        guard state == .active, target !== loop else { return false }
        flush()
        guard state == .active else { return false }
        loopState.forget(self)
        continueReadingScheduled = false
        flushScheduled = false
        buffersTracked = false
        armedDeadline = UInt64.max
        home.withLock { $0 = target }
        target.execute { [self] in arrive(on: target, then: then) }
        return true
    }

    /// The new loop's half of ``move(to:then:)``.
    private func arrive(on target: EventLoop, then: @Sendable () -> Void) {
        loop = target
        loopState = TLSLoopState.of(target)
        let events = RG_EPOLLIN | RG_EPOLLOUT | RG_EPOLLRDHUP | RG_EPOLLET
        guard loop.register(fd: fd, events: events, self) != nil else {
            let cause = OpenSSLErrors.errnoText(rg_errno())
            then()
            finish(.ioError(TransportError(.socket, "could not register the connection to \(peerDescription) with its new event loop", cause: cause)))
            return
        }
        setDeadline(idleDeadline())
        noteBuffersInUse()
        then()
        // `then` may have sent the connection on again: it is no longer this thread's.
        guard loop === target, home.withLock({ $0 === target }) else { return }
        if bufferedBytes > 0 && !flushScheduled {
            flushScheduled = true
            loopState.flushList.append(self)
        }
        if state == .active { readAvailable() }
    }
}
