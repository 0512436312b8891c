extension FrameConnection {
    /// The earliest time ``tick(now:)`` has something to do; nil for never.
    /// The transport arms one timer for it.
    public var nextTimerDeadline: WireTime? {
        guard state != .closed else { return nil }
        var next: WireTime?
        func consider(_ time: WireTime?) {
            guard let time else { return }
            if next == nil || time < next! { next = time }
        }
        for stream in streams.values { consider(stream.deadline) }
        if let keepalive = configuration.keepalive {
            if let sentAt = pingSentAt {
                consider(sentAt.adding(keepalive.timeout))
            } else if !streams.isEmpty || keepalive.permitWithoutCalls {
                consider(lastReceiveAt.adding(keepalive.interval))
            }
        }
        if let maxIdle = configuration.maxIdleTime, let idleSince, state == .active {
            consider(idleSince.adding(maxIdle))
        }
        if let maxAge = configuration.maxAge {
            if let sentAt = ageGoAwaySentAt {
                consider(sentAt.adding(configuration.maxAgeGrace))
            } else if state == .active {
                consider(createdAt.adding(maxAge))
            }
        }
        return next
    }

    /// ``nextTimerDeadline``, read through `inout` access.
    ///
    /// For a connection stored in a class (a transport handler that re-arms its timer
    /// after every write): reading a computed property of a struct that lives in a class
    /// copies the struct first, retaining and releasing every buffer and table in it.
    public mutating func currentTimerDeadline() -> WireTime? {
        nextTimerDeadline
    }

    /// Applies the passage of time: deadlines, keepalive, idle and age limits.
    public mutating func tick(now: WireTime) -> [ConnectionEvent] {
        var events: [ConnectionEvent] = []
        guard state != .closed else { return events }

        // Deadlines.
        let expired = streams.filter { $0.value.deadline.map { $0 <= now } ?? false }.keys.sorted()
        for id in expired {
            let status = ReaderGatewayV1.Status(.deadlineExceeded, "the call's deadline passed")
            if configuration.role == .server {
                FrameEncoder.append(.endOfCall(streamID: id, ReaderGatewayV1.CallEnd(status)), to: &outbound)
                events.append(.callCancelled(streamID: id, status))
            } else {
                FrameEncoder.append(.cancel(streamID: id, status), to: &outbound)
                events.append(.callEnded(streamID: id, ReaderGatewayV1.CallEnd(status)))
            }
            removeStream(id, events: &events)
            if state == .closed { return events }
        }

        // Keepalive.
        if let keepalive = configuration.keepalive {
            if let sentAt = pingSentAt {
                if now.since(sentAt) >= keepalive.timeout {
                    fail(WireError(code: .keepaliveTimeout, message: "no answer to a keepalive PING within \(keepalive.timeout)"), events: &events)
                    return events
                }
            } else if (!streams.isEmpty || keepalive.permitWithoutCalls) && now.since(lastReceiveAt) >= keepalive.interval {
                sendPing(now: now)
            }
        }

        // Connection management (gRFC A9).
        if streams.isEmpty && idleSince == nil { idleSince = now }
        if let maxIdle = configuration.maxIdleTime, let idleSince, state == .active, now.since(idleSince) >= maxIdle {
            beginShutdown(ReaderGatewayV1.Status(.goingAway, "the connection was idle for \(maxIdle)"), events: &events)
        }
        if let maxAge = configuration.maxAge {
            if let sentAt = ageGoAwaySentAt {
                if now.since(sentAt) >= configuration.maxAgeGrace {
                    let status = ReaderGatewayV1.Status(.goingAway, "the connection reached its max age and grace period")
                    endAllStreams(status, events: &events)
                    state = .closed
                    events.append(.closed(status))
                }
            } else if now.since(createdAt) >= maxAge {
                ageGoAwaySentAt = now
                if state == .active {
                    beginShutdown(ReaderGatewayV1.Status(.goingAway, "the connection reached its max age of \(maxAge); reconnect"), events: &events)
                }
            }
        }
        return events
    }

    /// Sends a PING now, unless one is outstanding; its answer arrives as
    /// ``ConnectionEvent/pingAcknowledged(roundTrip:)``.
    public mutating func sendPing(now: WireTime) {
        guard state != .closed, pingSentAt == nil else { return }
        pingPayload &+= 1
        pingSentAt = now
        FrameEncoder.append(.ping(ack: false, payload: pingPayload), to: &outbound)
    }

    /// Graceful shutdown: GOAWAY with the last stream id this side processes;
    /// open calls finish, new ones are refused, the connection closes (event
    /// ``ConnectionEvent/closed(_:)``) when the last call ends.
    public mutating func initiateGracefulShutdown(reason: String = "the server is shutting down") -> [ConnectionEvent] {
        var events: [ConnectionEvent] = []
        guard state == .active else { return events }
        beginShutdown(ReaderGatewayV1.Status(.goingAway, reason), events: &events)
        return events
    }

    mutating func beginShutdown(_ status: ReaderGatewayV1.Status, events: inout [ConnectionEvent]) {
        var goAway = ReaderGatewayV1.GoAway()
        goAway.lastStreamID = highestPeerStreamID
        goAway.status = status
        FrameEncoder.append(.goAway(goAway), to: &outbound)
        goAwaySent = true
        state = .draining
        closeIfDrained(events: &events)
    }
}
