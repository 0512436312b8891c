import GatewayWire

/// Writing, closing, timers, waiting calls and failing calls (executor).
extension ChannelHandler {
    /// Writes what the connection queued, closes when it finished, re-arms the timer.
    func afterOperation() {
        guard let connection else { return }
        if !pending.isEmpty { startPending() }
        if frames.hasOutbound {
            _ = connection.write(frames.takeOutbound())
        }
        if closing {
            timer?.cancel()
            timer = nil
            connection.close(graceful: true)
            return
        }
        rearmTimer()
    }

    func rearmTimer() {
        let next = frames.nextTimerDeadline
        guard next != armedDeadline else { return }
        timer?.cancel()
        timer = nil
        armedDeadline = next
        guard let next else { return }
        let now = WireTime.now
        let delay: Duration = next > now ? .nanoseconds(Int64(next.nanoseconds - now.nanoseconds)) : .zero
        timer = executor.schedule(after: delay) { [self] in
            self.timerFired()
        }
    }

    func timerFired() {
        timer = nil
        armedDeadline = nil
        guard !finished else { return }
        process(frames.tick(now: WireTime.now))
        afterOperation()
    }

    /// Starts waiting calls while the server allows more streams.
    func startPending() {
        while !pending.isEmpty && !closing && !finished {
            if frames.state == .active && frames.openStreamCount >= frames.peerSettings.maxConcurrentStreams { return }
            let next = pending.removeFirst()
            var timeout: Duration?
            if let deadline = next.deadline {
                let now = WireTime.now
                guard deadline > now else {
                    let error = RPCError(.deadlineExceeded, "the call's deadline passed while it waited for a free stream")
                    next.handle.outcome = .some(error)
                    next.inbound.finish(throwing: error)
                    continue
                }
                timeout = deadline.since(now)
            }
            let halfCloseAtStart = next.halfClose && next.laterMessages.isEmpty
            startCall(
                handle: next.handle, path: next.path, metadata: next.metadata, timeout: timeout, firstMessage: next.firstMessage,
                halfClose: halfCloseAtStart, autoConsume: next.autoConsume, inbound: next.inbound
            )
            guard let id = next.handle.streamID, calls[id] != nil, !next.laterMessages.isEmpty else { continue }
            do {
                for message in next.laterMessages { try frames.send(serialized: message, on: id) }
                if next.halfClose { try frames.halfClose(id) }
            } catch {
                cancel(handle: next.handle, error: (error as? WireError).map(RPCError.from) ?? RPCError(.internal, "\(error)"))
            }
        }
    }

    func failAllCalls(_ error: RPCError) {
        let waiting = pending
        pending = []
        for call in waiting {
            call.handle.outcome = .some(error)
            call.inbound.finish(throwing: error)
        }
        let entries = calls
        calls = [:]
        for (_, entry) in entries {
            entry.handle.outcome = .some(error)
            entry.writableWaiter?.resume(throwing: error)
            entry.inbound.finish(throwing: error)
        }
    }

    func closedError() -> RPCError {
        switch state {
        case .closed(let error), .draining(let error): error
        default: .unavailable(.connectionLost, "the channel is not connected")
        }
    }

    func endedError(_ handle: CallHandle) -> RPCError {
        if case .some(.some(let error)) = handle.outcome { return error }
        if handle.cancelled { return .cancelled() }
        return RPCError(.streamStateInvalid, "the call already ended; start a new one")
    }
}
