extension FrameConnection {
    /// Applies one received frame.
    mutating func handle(_ frame: Frame, now: WireTime, events: inout [ConnectionEvent]) {
        if !receivedPeerSettings {
            guard case .settings = frame else {
                fail(WireError(code: .invalidFrame, message: "the first frame must be SETTINGS, got \(frame.typeName)"), events: &events)
                return
            }
        }
        switch frame {
        case .settings(let settings):
            receiveSettings(settings, events: &events)
        case .callStart(let id, let start):
            receiveCallStart(id, start, now: now, events: &events)
        case .message(let id, let payload):
            receiveMessage(id, payload, events: &events)
        case .halfClose(let id):
            guard configuration.role == .server else {
                fail(WireError(code: .invalidFrame, message: "a server ends a call with END_OF_CALL, not HALF_CLOSE"), events: &events)
                return
            }
            guard let index = streams.index(forKey: id) else {
                if !isClosedStream(id) { failIdle(id, "HALF_CLOSE", events: &events) }
                return
            }
            if streams.values[index].ending { return }
            guard streams.values[index].remoteOpen else {
                resetStream(id, ReaderGatewayV1.Status(.streamStateInvalid, "HALF_CLOSE twice on stream \(id)"), events: &events)
                return
            }
            streams.values[index].remoteOpen = false
            events.append(.halfClosed(streamID: id))
        case .endOfCall(let id, let end):
            guard configuration.role == .client else {
                fail(WireError(code: .invalidFrame, message: "a client cannot send END_OF_CALL; use HALF_CLOSE or CANCEL"), events: &events)
                return
            }
            guard streams[id] != nil else {
                if !isClosedStream(id) { failIdle(id, "END_OF_CALL", events: &events) }
                return
            }
            events.append(.callEnded(streamID: id, end))
            removeStream(id, events: &events)
        case .cancel(let id, var status):
            guard streams[id] != nil else {
                if !isClosedStream(id) { failIdle(id, "CANCEL", events: &events) }
                return
            }
            if status.code == .ok {
                status = ReaderGatewayV1.Status(.cancelledByPeer, status.message.isEmpty ? "the peer cancelled the call" : status.message)
            }
            events.append(endEvent(id, status))
            removeStream(id, events: &events)
        case .ping(let ack, let payload):
            receivePing(ack: ack, payload: payload, now: now, events: &events)
        case .goAway(let goAway):
            receiveGoAway(goAway, events: &events)
        case .windowUpdate(let id, let increment):
            receiveWindowUpdate(id, Int64(increment), events: &events)
        }
    }

    private mutating func failIdle(_ id: UInt32, _ type: String, events: inout [ConnectionEvent]) {
        fail(WireError(code: .streamStateInvalid, message: "\(type) on stream \(id), which was never opened"), events: &events)
    }

    private mutating func receiveSettings(_ message: ReaderGatewayV1.Settings, events: inout [ConnectionEvent]) {
        guard !receivedPeerSettings else {
            fail(WireError(code: .invalidFrame, message: "SETTINGS may be sent only once, as the first frame"), events: &events)
            return
        }
        let settings: ConnectionSettings
        do {
            settings = try ConnectionSettings(message)
        } catch let error as WireError {
            fail(error, events: &events)
            return
        } catch {
            return
        }
        receivedPeerSettings = true
        let streamDelta = Int64(settings.initialStreamWindow) - Int64(peerSettings.initialStreamWindow)
        let connectionDelta = Int64(settings.initialConnectionWindow) - Int64(peerSettings.initialConnectionWindow)
        peerSettings = settings
        connectionSendWindow += connectionDelta
        for id in streams.keys {
            streams[id]!.sendWindow += streamDelta
        }
        flushAllQueues(events: &events)
    }

    private mutating func receiveCallStart(_ id: UInt32, _ start: ReaderGatewayV1.CallStart, now: WireTime, events: inout [ConnectionEvent]) {
        guard configuration.role == .server else {
            fail(WireError(code: .invalidFrame, message: "a server cannot start calls (CALL_START on stream \(id))"), events: &events)
            return
        }
        guard id & 1 == 1, id > highestPeerStreamID else {
            let problem = id & 1 == 0 ? "is even" : "is not above the last one (\(highestPeerStreamID)): reused or out of order"
            fail(WireError(code: .streamIDInvalid, message: "CALL_START stream id \(id) \(problem)"), events: &events)
            return
        }
        highestPeerStreamID = id
        if state != .active {
            let status = ReaderGatewayV1.Status(.goingAway, "the server is going away; the call was not processed, retry on a new connection")
            FrameEncoder.append(.endOfCall(streamID: id, ReaderGatewayV1.CallEnd(status)), to: &outbound)
            return
        }
        if streams.count >= configuration.localSettings.maxConcurrentStreams {
            let status = ReaderGatewayV1.Status(.tooManyStreams, "the server allows \(configuration.localSettings.maxConcurrentStreams) concurrent calls per connection; the call was not processed")
            FrameEncoder.append(.endOfCall(streamID: id, ReaderGatewayV1.CallEnd(status)), to: &outbound)
            return
        }
        let deadline = start.timeoutMs > 0 ? now.adding(.milliseconds(Int64(clamping: start.timeoutMs))) : nil
        streams[id] = StreamState(
            sendWindow: peerSettings.initialStreamWindow,
            receiveWindow: configuration.localSettings.initialStreamWindow,
            deadline: deadline
        )
        idleSince = nil
        events.append(.callStarted(streamID: id, start, deadline: deadline))
    }

    private mutating func receiveMessage(_ id: UInt32, _ payload: [UInt8], events: inout [ConnectionEvent]) {
        guard connectionReceiveWindow > 0 else {
            fail(WireError(code: .flowControlViolation, message: "MESSAGE on stream \(id) while the connection window is exhausted"), events: &events)
            return
        }
        let size = Int64(payload.count)
        connectionReceiveWindow -= size
        // In place (one hash, no copy of the stream): nothing below touches `streams`
        // before the last use of `index`.
        guard let index = streams.index(forKey: id) else {
            if isClosedStream(id) {
                returnConnectionCredit(size)
            } else {
                failIdle(id, "MESSAGE", events: &events)
            }
            return
        }
        if streams.values[index].ending {
            returnConnectionCredit(size)
            return
        }
        guard streams.values[index].remoteOpen else {
            returnConnectionCredit(size)
            resetStream(id, ReaderGatewayV1.Status(.streamStateInvalid, "MESSAGE after HALF_CLOSE on stream \(id)"), events: &events)
            return
        }
        guard streams.values[index].receiveWindow > 0 else {
            fail(WireError(code: .flowControlViolation, message: "MESSAGE on stream \(id) while its window is exhausted"), events: &events)
            return
        }
        streams.values[index].receiveWindow -= size
        events.append(.message(streamID: id, payload))
    }

    private mutating func receivePing(ack: Bool, payload: UInt64, now: WireTime, events: inout [ConnectionEvent]) {
        if ack {
            if let sentAt = pingSentAt, payload == pingPayload {
                pingSentAt = nil
                events.append(.pingAcknowledged(roundTrip: now.since(sentAt)))
            }
            return
        }
        if configuration.role == .server {
            let policy = configuration.pingPolicy
            var strike = false
            if let last = lastPeerPingAt, now.since(last) < policy.minimumInterval { strike = true }
            if streams.isEmpty && !policy.permitWithoutCalls { strike = true }
            lastPeerPingAt = now
            if strike {
                pingStrikes += 1
                if pingStrikes > policy.maxStrikes {
                    fail(WireError(code: .tooManyPings, message: "too many pings: at most one per \(policy.minimumInterval) is allowed"), events: &events)
                    return
                }
            }
        }
        FrameEncoder.append(.ping(ack: true, payload: payload), to: &outbound)
    }

    private mutating func receiveGoAway(_ goAway: ReaderGatewayV1.GoAway, events: inout [ConnectionEvent]) {
        goAwayReceived = true
        if configuration.role == .client {
            let status = ReaderGatewayV1.Status(.goingAway, "the server sent GOAWAY before processing this call; retry it on a new connection")
            for id in streams.keys.sorted() where id > goAway.lastStreamID {
                events.append(.callEnded(streamID: id, ReaderGatewayV1.CallEnd(status)))
                streams[id] = nil
            }
        }
        events.append(.goAwayReceived(goAway))
        if state == .active { state = .draining }
        closeIfDrained(events: &events)
    }

    private mutating func receiveWindowUpdate(_ id: UInt32, _ increment: Int64, events: inout [ConnectionEvent]) {
        if id == 0 {
            connectionSendWindow += increment
            guard connectionSendWindow <= FrameHeader.maxWindow else {
                fail(WireError(code: .flowControlViolation, message: "WINDOW_UPDATE takes the connection window above 2^31-1"), events: &events)
                return
            }
            flushAllQueues(events: &events)
            return
        }
        guard var stream = streams[id] else {
            if !isClosedStream(id) { failIdle(id, "WINDOW_UPDATE", events: &events) }
            return
        }
        stream.sendWindow += increment
        guard stream.sendWindow <= FrameHeader.maxWindow else {
            fail(WireError(code: .flowControlViolation, message: "WINDOW_UPDATE takes stream \(id)'s window above 2^31-1"), events: &events)
            return
        }
        streams[id] = stream
        flushQueue(id, events: &events)
    }

    /// Ends one call because of a stream error: END_OF_CALL (server) or CANCEL
    /// (client) to the peer, an event to the owner.
    mutating func resetStream(_ id: UInt32, _ status: ReaderGatewayV1.Status, events: inout [ConnectionEvent]) {
        if configuration.role == .server {
            FrameEncoder.append(.endOfCall(streamID: id, ReaderGatewayV1.CallEnd(status)), to: &outbound)
        } else {
            FrameEncoder.append(.cancel(streamID: id, status), to: &outbound)
        }
        events.append(endEvent(id, status))
        removeStream(id, events: &events)
    }
}

extension Frame {
    var typeName: String {
        switch self {
        case .settings: "SETTINGS"
        case .callStart: "CALL_START"
        case .message: "MESSAGE"
        case .halfClose: "HALF_CLOSE"
        case .endOfCall: "END_OF_CALL"
        case .cancel: "CANCEL"
        case .ping: "PING"
        case .goAway: "GOAWAY"
        case .windowUpdate: "WINDOW_UPDATE"
        }
    }
}
