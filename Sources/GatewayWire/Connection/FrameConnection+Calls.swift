extension FrameConnection {
    // MARK: starting and ending calls

    /// Client: starts a call and returns its stream id.
    ///
    /// - Parameters:
    ///   - method: the method path, e.g. `/readergateway.v1.Sdk/ConnectReader`.
    ///   - metadata: call metadata (e.g. `authorization`).
    ///   - timeout: the call's deadline relative to now; nil for none.
    /// - Throws: ``WireError`` `connectionClosing` after GOAWAY, `tooManyStreams`
    ///   at the peer's concurrency limit, `headerTooLarge`, `invalidUse` on a server.
    public mutating func startCall(
        method: String,
        metadata: [ReaderGatewayV1.MetadataEntry] = [],
        timeout: Duration? = nil,
        now: WireTime
    ) throws -> UInt32 {
        guard configuration.role == .client else {
            throw WireError(code: .invalidUse, message: "only a client starts calls")
        }
        guard state == .active else {
            throw WireError(code: .connectionClosing, message: "the connection is \(state == .draining ? "draining after GOAWAY" : "closed"); start the call on a new connection")
        }
        guard streams.count < peerSettings.maxConcurrentStreams else {
            throw WireError(code: .tooManyStreams, message: "the peer allows \(peerSettings.maxConcurrentStreams) concurrent calls; wait for one to end or open another connection")
        }
        guard nextLocalStreamID <= FrameHeader.maxStreamID else {
            throw WireError(code: .connectionClosing, message: "this connection used all its stream ids; open a new connection")
        }
        var start = ReaderGatewayV1.CallStart()
        start.method = method
        start.metadata = metadata
        var deadline: WireTime?
        if let timeout {
            let nanoseconds = WireTime.nanoseconds(of: timeout)
            let milliseconds = max(1, nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 > 0 ? 1 : 0))
            start.timeoutMs = UInt64(milliseconds)
            deadline = now.adding(timeout)
        }
        let headerStart = outbound.count
        let id = nextLocalStreamID
        let length = FrameEncoder.append(type: .callStart, streamID: id, message: start, to: &outbound)
        guard length <= peerSettings.maxHeaderSize else {
            outbound.removeSubrange(headerStart...)
            throw WireError(code: .headerTooLarge, message: "the method and metadata take \(length) bytes; the peer accepts \(peerSettings.maxHeaderSize)")
        }
        nextLocalStreamID += 2
        streams[id] = StreamState(
            sendWindow: peerSettings.initialStreamWindow,
            receiveWindow: configuration.localSettings.initialStreamWindow,
            deadline: deadline
        )
        idleSince = nil
        return id
    }

    /// Sends one message on a call (client request or server response).
    ///
    /// Written at once when flow control allows, queued otherwise (bounded by
    /// ``ConnectionConfiguration/maxQueuedBytesPerStream``).
    /// - Returns: true when written, false when queued (a
    ///   ``ConnectionEvent/writable(streamID:)`` follows when the queue drains).
    @discardableResult
    public mutating func send<Message: ProtobufMessage>(_ message: Message, on id: UInt32) throws -> Bool {
        let index = try sendableStreamIndex(id)
        if streams.values[index].hasQueue || streams.values[index].sendWindow <= 0 || connectionSendWindow <= 0 {
            return try enqueue(message.serializedBytes(), on: id, at: index)
        }
        let headerStart = outbound.count
        let length = FrameEncoder.append(type: .message, streamID: id, message: message, to: &outbound)
        guard length <= peerSettings.maxFrameSize else {
            outbound.removeSubrange(headerStart...)
            throw messageTooLarge(length)
        }
        streams.values[index].sendWindow -= Int64(length)
        connectionSendWindow -= Int64(length)
        return true
    }

    /// Sends one already serialized message on a call.
    @discardableResult
    public mutating func send(serialized payload: [UInt8], on id: UInt32) throws -> Bool {
        let index = try sendableStreamIndex(id)
        guard payload.count <= peerSettings.maxFrameSize else { throw messageTooLarge(payload.count) }
        if streams.values[index].hasQueue || streams.values[index].sendWindow <= 0 || connectionSendWindow <= 0 {
            return try enqueue(payload, on: id, at: index)
        }
        FrameEncoder.append(type: .message, streamID: id, payload: payload, to: &outbound)
        streams.values[index].sendWindow -= Int64(payload.count)
        connectionSendWindow -= Int64(payload.count)
        return true
    }

    /// Where stream `id` is in ``streams``, if it may still send. Callers then read and
    /// modify it in place through `streams.values[index]` (one hash, no copy of the stream).
    private func sendableStreamIndex(_ id: UInt32) throws -> [UInt32: StreamState].Index {
        guard let index = streams.index(forKey: id) else {
            throw WireError(code: .unknownStream, message: "stream \(id) is not an open call")
        }
        guard streams.values[index].localOpen else {
            throw WireError(code: .streamStateInvalid, message: "stream \(id) is already closed for sending")
        }
        return index
    }

    private func messageTooLarge(_ length: Int) -> WireError {
        WireError(code: .messageTooLarge, message: "a message of \(length) bytes is above the peer's max frame size of \(peerSettings.maxFrameSize)")
    }

    private mutating func enqueue(_ payload: [UInt8], on id: UInt32, at index: [UInt32: StreamState].Index) throws -> Bool {
        guard payload.count <= peerSettings.maxFrameSize else { throw messageTooLarge(payload.count) }
        let queued = streams.values[index].queuedBytes
        guard queued + payload.count <= configuration.maxQueuedBytesPerStream else {
            throw WireError(
                code: .queueFull,
                message: "stream \(id) already queues \(queued) bytes the peer has not accepted; wait for .writable"
            )
        }
        streams.values[index].enqueue(.message(payload))
        return false
    }

    /// Client: sends no more messages on this call (HALF_CLOSE).
    public mutating func halfClose(_ id: UInt32) throws {
        guard configuration.role == .client else {
            throw WireError(code: .invalidUse, message: "a server ends a call with endCall, not halfClose")
        }
        let index = try sendableStreamIndex(id)
        streams.values[index].localOpen = false
        if streams.values[index].hasQueue {
            streams.values[index].enqueue(.halfClose)
        } else {
            FrameEncoder.append(.halfClose(streamID: id), to: &outbound)
        }
    }

    /// Server: ends a call with its status (END_OF_CALL), after any queued messages.
    ///
    /// Returns the events this causes (the connection closing when it was draining).
    @discardableResult
    public mutating func endCall(_ id: UInt32, status: ReaderGatewayV1.Status, trailers: [ReaderGatewayV1.MetadataEntry] = []) throws -> [ConnectionEvent] {
        guard configuration.role == .server else {
            throw WireError(code: .invalidUse, message: "a client ends a call with halfClose or cancel")
        }
        let index = try sendableStreamIndex(id)
        var end = ReaderGatewayV1.CallEnd(status)
        end.trailers = trailers
        if streams.values[index].hasQueue {
            streams.values[index].localOpen = false
            streams.values[index].ending = true
            streams.values[index].enqueue(.endOfCall(end))
            return []
        }
        FrameEncoder.append(.endOfCall(streamID: id, end), to: &outbound)
        var events: [ConnectionEvent] = []
        removeStream(id, events: &events)
        return events
    }

    /// Abandons a call (CANCEL to the peer). Unknown or finished ids are ignored.
    ///
    /// Returns the events this causes (the connection closing when it was draining).
    @discardableResult
    public mutating func cancel(_ id: UInt32, status: ReaderGatewayV1.Status = ReaderGatewayV1.Status(.cancelledByPeer, "the call was cancelled")) -> [ConnectionEvent] {
        var events: [ConnectionEvent] = []
        guard streams[id] != nil, state != .closed else { return events }
        FrameEncoder.append(.cancel(streamID: id, status), to: &outbound)
        removeStream(id, events: &events)
        return events
    }

    // MARK: flow control

    /// Returns flow-control credit for `byteCount` bytes of received messages
    /// the owner has processed. WINDOW_UPDATE frames go out once half a window
    /// is owed, so credit costs a frame per half window, not per message.
    public mutating func messageConsumed(_ id: UInt32, byteCount: Int) {
        guard state != .closed, byteCount > 0 else { return }
        returnConnectionCredit(Int64(byteCount))
        guard let index = streams.index(forKey: id), streams.values[index].remoteOpen else { return }
        streams.values[index].pendingCredit += Int64(byteCount)
        streams.values[index].receiveWindow += Int64(byteCount)
        let pendingCredit = streams.values[index].pendingCredit
        if pendingCredit >= Int64(configuration.localSettings.initialStreamWindow / 2) {
            let increment = min(pendingCredit, FrameHeader.maxWindow)
            FrameEncoder.append(.windowUpdate(streamID: id, increment: UInt32(increment)), to: &outbound)
            streams.values[index].pendingCredit -= increment
        }
    }

    mutating func returnConnectionCredit(_ byteCount: Int64) {
        connectionPendingCredit += byteCount
        connectionReceiveWindow += byteCount
        if connectionPendingCredit >= Int64(configuration.localSettings.initialConnectionWindow / 2) {
            let increment = min(connectionPendingCredit, FrameHeader.maxWindow)
            FrameEncoder.append(.windowUpdate(streamID: 0, increment: UInt32(increment)), to: &outbound)
            connectionPendingCredit -= increment
        }
    }

    mutating func flushAllQueues(events: inout [ConnectionEvent]) {
        for id in streams.keys.sorted() where streams[id]?.hasQueue == true {
            guard connectionSendWindow > 0 else { return }
            flushQueue(id, events: &events)
        }
    }

    /// Writes what the windows allow from a stream's queue.
    mutating func flushQueue(_ id: UInt32, events: inout [ConnectionEvent]) {
        guard var stream = streams[id], stream.hasQueue else { return }
        while let head = stream.head {
            switch head {
            case .message(let payload):
                guard stream.sendWindow > 0, connectionSendWindow > 0 else {
                    streams[id] = stream
                    return
                }
                _ = stream.dequeue()
                FrameEncoder.append(type: .message, streamID: id, payload: payload, to: &outbound)
                stream.sendWindow -= Int64(payload.count)
                connectionSendWindow -= Int64(payload.count)
            case .halfClose:
                _ = stream.dequeue()
                FrameEncoder.append(.halfClose(streamID: id), to: &outbound)
            case .endOfCall(let end):
                FrameEncoder.append(.endOfCall(streamID: id, end), to: &outbound)
                removeStream(id, events: &events)
                return
            }
        }
        streams[id] = stream
        if stream.localOpen { events.append(.writable(streamID: id)) }
    }
}
