/// One end of a multiplexed call connection, as a pure state machine.
///
/// `FrameConnection` owns no socket and reads no clock. The transport hands it
/// received bytes (``receive(_:now:)``) and the time (``tick(now:)``), and
/// takes from it the bytes to write (``takeOutbound()``) and the events to act
/// on (``ConnectionEvent``). Calls are started, fed, half-closed, ended and
/// cancelled through its methods; each returns at once and only queues bytes.
///
/// It implements PROTOCOL.md: SETTINGS exchange, odd increasing stream ids,
/// per-stream and per-connection flow control with bounded queues, deadlines,
/// cancellation both ways, keepalive pings with abuse policing, GOAWAY
/// draining, max idle time and max age. Peer misbehaviour never traps: a
/// stream error ends that call with a status, a connection error sends GOAWAY
/// with a status and reason and emits ``ConnectionEvent/closed(_:)``.
///
/// Not thread-safe: confine each connection to its event loop.
public struct FrameConnection: Sendable {
    /// Where the connection is in its life.
    public enum State: Sendable, Hashable {
        /// Calls may start.
        case active
        /// GOAWAY was sent or received: open calls finish, no new ones start.
        case draining
        /// Finished; only the final outbound bytes remain to be written.
        case closed
    }

    /// The configuration it was made with.
    public var configuration: ConnectionConfiguration { shared.configuration }
    /// The configuration, shared with the other connections made with it.
    let shared: SharedConnectionConfiguration
    /// The peer's limits (the defaults until its SETTINGS arrives).
    public internal(set) var peerSettings = ConnectionSettings()
    /// Where the connection is in its life.
    public internal(set) var state: State = .active

    var decoder: FrameDecoder
    @usableFromInline var outbound: [UInt8] = []
    var streams: [UInt32: StreamState] = [:]
    var receivedPeerSettings = false
    /// Server: the highest stream id the client opened. Client: unused.
    var highestPeerStreamID: UInt32 = 0
    /// Client: the id of the next call.
    var nextLocalStreamID: UInt32 = 1
    var connectionSendWindow: Int64
    var connectionReceiveWindow: Int64
    var connectionPendingCredit: Int64 = 0
    var goAwaySent = false
    var goAwayReceived = false

    // keepalive and connection management
    let createdAt: WireTime
    var lastReceiveAt: WireTime
    var idleSince: WireTime?
    var pingSentAt: WireTime?
    var pingPayload: UInt64 = 0
    var lastPeerPingAt: WireTime?
    var pingStrikes = 0
    var ageGoAwaySentAt: WireTime?

    /// A connection that has queued its preface (client) and SETTINGS.
    public init(configuration: ConnectionConfiguration, now: WireTime) {
        self.init(shared: SharedConnectionConfiguration(configuration), now: now)
    }

    /// A connection that has queued its preface (client) and SETTINGS, made with a
    /// configuration it shares with other connections.
    public init(shared: SharedConnectionConfiguration, now: WireTime) {
        self.shared = shared
        let configuration = shared.configuration
        self.decoder = FrameDecoder(
            maxFrameSize: configuration.localSettings.maxFrameSize,
            maxHeaderSize: configuration.localSettings.maxHeaderSize,
            expectsClientPreface: configuration.role == .server,
            decodingOptions: configuration.decodingOptions
        )
        self.connectionSendWindow = Int64(ConnectionSettings.defaultInitialConnectionWindow)
        self.connectionReceiveWindow = Int64(configuration.localSettings.initialConnectionWindow)
        self.createdAt = now
        self.lastReceiveAt = now
        self.idleSince = now
        // No capacity reserved up front: a reader link writes a few small frames a minute, and
        // 4 KiB reserved per connection was about a tenth of an attached reader's memory. A busy
        // connection's buffers grow to its messages once and keep that size (``takeOutbound(into:)``).
        if configuration.role == .client {
            outbound.append(contentsOf: FrameHeader.clientPreface)
        }
        FrameEncoder.append(.settings(configuration.localSettings.message), to: &outbound)
    }

    /// Calls open right now.
    public var openStreamCount: Int { streams.count }

    /// Whether stream `id` is an open call.
    public func isOpen(_ id: UInt32) -> Bool { streams[id] != nil }

    /// Whether bytes wait to be written.
    ///
    /// Inlinable: a connection stored in a class (a transport handler) would otherwise be
    /// copied, every buffer and table retained and released, to call the getter.
    @inlinable public var hasOutbound: Bool { !outbound.isEmpty }

    /// Takes the bytes to write to the transport, in order.
    public mutating func takeOutbound() -> [UInt8] {
        var bytes: [UInt8] = []
        swap(&bytes, &outbound)
        outbound.reserveCapacity(Swift.min(bytes.capacity, 1 << 16))
        return bytes
    }

    /// Moves the bytes to write into `buffer` (its old contents are dropped) and keeps
    /// `buffer`'s storage for the next ones: two buffers trade places, so a connection
    /// that writes after every read allocates nothing per write (``takeOutbound()``
    /// allocates a fresh buffer each time).
    public mutating func takeOutbound(into buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
        swap(&buffer, &outbound)
        if outbound.capacity > 1 << 16 {
            outbound = []
            outbound.reserveCapacity(4096)
        }
    }

    /// Gives `buffer`'s storage back once the bytes ``takeOutbound(into:)`` moved into it are
    /// written, if nothing was queued meanwhile: `buffer` is left empty without storage, so
    /// that a connection keeps one buffer's capacity between writes, not two. No allocation:
    /// the two buffers trade places again. If something was queued meanwhile, `buffer` keeps
    /// its storage for the next write unless it is over 64 KiB (then it is dropped).
    public mutating func returnOutboundStorage(_ buffer: inout [UInt8]) {
        guard outbound.isEmpty else {
            if buffer.capacity > 1 << 16 { buffer = [] }
            return
        }
        if buffer.capacity > outbound.capacity && buffer.capacity <= 1 << 16 {
            buffer.removeAll(keepingCapacity: true)
            swap(&buffer, &outbound)
        }
        buffer = []
    }

    /// Gives back the storage kept between messages (the empty write buffer, the drained
    /// decoder's buffer) while the connection is quiet; the next message allocates it again.
    public mutating func releaseIdleStorage() {
        if outbound.isEmpty && outbound.capacity > 0 { outbound = [] }
        decoder.releaseStorageIfDrained()
    }

    // MARK: input

    /// Processes received bytes.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, now: WireTime) -> [ConnectionEvent] {
        var events: [ConnectionEvent] = []
        receive(bytes, now: now, into: &events)
        return events
    }

    /// Processes received bytes, appending the events to `events` (a buffer the caller
    /// reuses, so that no array is allocated per read).
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, now: WireTime, into events: inout [ConnectionEvent]) {
        guard state != .closed else { return }
        lastReceiveAt = now
        // Nothing buffered: the read's whole frames are decoded where they are, and only a
        // frame it ends in the middle of is copied into the decoder's buffer. A connection
        // whose frames arrive whole holds no buffer between reads (nor copies its bytes).
        var offset = 0
        let inPlace = decoder.isDrained
        if !inPlace { decoder.append(bytes) }
        while state != .closed {
            let frame: Frame?
            do {
                frame = inPlace ? try decoder.nextFrame(in: bytes, at: &offset) : try decoder.nextFrame()
            } catch let error as WireError {
                fail(error, events: &events)
                break
            } catch {
                fail(WireError(code: .invalidFrame, message: "\(error)"), events: &events)
                break
            }
            guard let frame else { break }
            handle(frame, now: now, events: &events)
        }
        if inPlace, state != .closed, offset < bytes.count {
            decoder.append(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
    }

    /// Processes received bytes.
    public mutating func receive(_ bytes: [UInt8], now: WireTime) -> [ConnectionEvent] {
        bytes.withUnsafeBytes { receive($0, now: now) }
    }

    /// The transport closed or failed under the connection: every open call
    /// ends with UNAVAILABLE / CONNECTION_LOST.
    public mutating func connectionLost(reason: String = "the connection was lost") -> [ConnectionEvent] {
        var events: [ConnectionEvent] = []
        guard state != .closed else { return events }
        let status = ReaderGatewayV1.Status(.connectionLost, reason)
        endAllStreams(status, events: &events)
        state = .closed
        events.append(.closed(status))
        return events
    }

    // MARK: connection errors

    /// Ends the connection because of `error`: GOAWAY with its status, every
    /// open call ended, ``ConnectionEvent/closed(_:)``.
    mutating func fail(_ error: WireError, events: inout [ConnectionEvent]) {
        guard state != .closed else { return }
        let status = error.status
        var goAway = ReaderGatewayV1.GoAway()
        goAway.lastStreamID = highestPeerStreamID
        goAway.status = status
        FrameEncoder.append(.goAway(goAway), to: &outbound)
        goAwaySent = true
        endAllStreams(status, events: &events)
        state = .closed
        events.append(.closed(status))
    }

    mutating func endAllStreams(_ status: ReaderGatewayV1.Status, events: inout [ConnectionEvent]) {
        for id in streams.keys.sorted() {
            events.append(endEvent(id, status))
        }
        streams.removeAll()
    }

    func endEvent(_ id: UInt32, _ status: ReaderGatewayV1.Status) -> ConnectionEvent {
        configuration.role == .server ? .callCancelled(streamID: id, status) : .callEnded(streamID: id, ReaderGatewayV1.CallEnd(status))
    }

    /// Removes a finished stream; a draining connection closes with its last call.
    mutating func removeStream(_ id: UInt32, events: inout [ConnectionEvent]) {
        streams[id] = nil
        closeIfDrained(events: &events)
    }

    mutating func closeIfDrained(events: inout [ConnectionEvent]) {
        if state == .draining && streams.isEmpty {
            state = .closed
            events.append(.closed(ReaderGatewayV1.Status(.goingAway, "the connection drained after GOAWAY")))
        }
    }

    /// Whether `id` names a call that existed and has ended (late frames for
    /// it are ignored, as HTTP/2 does after RST_STREAM).
    func isClosedStream(_ id: UInt32) -> Bool {
        switch configuration.role {
        case .server: id <= highestPeerStreamID
        case .client: id < nextLocalStreamID
        }
    }
}
