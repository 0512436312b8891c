import GatewayCore
import Synchronization

/// An async-friendly TLS client connection: bytes in as an `AsyncThrowingStream`, writes and
/// close from any task. For tests, tools and the SDK; servers use ``ConnectionHandler`` directly.
public final class AsyncTLSConnection: Sendable {
    /// Chunks of decrypted bytes; ends when the connection closes (throwing for failures).
    public let inbound: AsyncThrowingStream<[UInt8], any Error>
    /// What the handshake produced.
    public let info: ConnectionInfo
    private let connection: TLSConnection
    private let bridge: Bridge

    private init(connection: TLSConnection, info: ConnectionInfo, bridge: Bridge) {
        self.connection = connection
        self.info = info
        self.bridge = bridge
        self.inbound = bridge.stream
    }

    /// Connects and completes the handshake, or throws the ``TransportError`` that stopped it.
    public static func connect(
        host: String,
        port: Int,
        serverName: String? = nil,
        context: TLSContext,
        limits: ConnectionLimits = ConnectionLimits(),
        sessions: TLSSessionCache? = nil,
        on loop: EventLoop
    ) async throws -> AsyncTLSConnection {
        let bridge = Bridge()
        return try await withCheckedThrowingContinuation { continuation in
            bridge.setConnectContinuation(continuation)
            TLSClient.connect(host: host, port: port, serverName: serverName, context: context, limits: limits, sessions: sessions, on: loop) { _ in
                bridge
            }
        }
    }

    /// Connects to the resolved `address`, verifying the certificate against `serverName`.
    public static func connect(
        address: SocketAddress,
        serverName: String,
        context: TLSContext,
        limits: ConnectionLimits = ConnectionLimits(),
        on loop: EventLoop
    ) async throws -> AsyncTLSConnection {
        let bridge = Bridge()
        return try await withCheckedThrowingContinuation { continuation in
            bridge.setConnectContinuation(continuation)
            TLSClient.connect(address: address, serverName: serverName, context: context, limits: limits, on: loop) { _ in bridge }
        }
    }

    /// Queues bytes to the server. There is no waiting for the peer here: bytes beyond
    /// `ConnectionLimits.writeBufferHardLimit` close the connection, so size the limits for the
    /// largest burst (or use ``TLSClient`` with a handler that watches writability).
    public func write(_ bytes: [UInt8]) {
        let connection = self.connection
        connection.eventLoop.execute { connection.write(bytes) }
    }

    /// Closes the connection (gracefully: close_notify, then wait for the server's).
    public func close(graceful: Bool = true) {
        let connection = self.connection
        connection.eventLoop.execute { connection.close(graceful: graceful) }
    }

    /// Why the connection closed, once it has.
    public var closeReason: CloseReason? { bridge.closeReason }

    /// Waits until the connection closed and returns why (bounded by `timeout`; nil if still open).
    public func waitUntilClosed(timeout: Duration) async -> CloseReason? {
        _ = await bridge.closed.wait(atMost: timeout)
        return bridge.closeReason
    }

    /// Reads exactly `count` bytes from an iterator of ``inbound`` (keeping leftovers in `carry`).
    public static func read(
        exactly count: Int,
        from iterator: inout AsyncThrowingStream<[UInt8], any Error>.Iterator,
        carry: inout [UInt8]
    ) async throws -> [UInt8]? {
        while carry.count < count {
            guard let chunk = try await iterator.next() else { return nil }
            carry.append(contentsOf: chunk)
        }
        let result = Array(carry.prefix(count))
        carry.removeFirst(count)
        return result
    }

    /// The loop-side handler: forwards events into the stream and the connect continuation.
    ///
    /// `@unchecked Sendable`: the continuation slot and close reason sit in a `Mutex`; the
    /// stream continuation is itself thread-safe; callbacks run on the connection's loop.
    private final class Bridge: ConnectionHandler, @unchecked Sendable {
        let stream: AsyncThrowingStream<[UInt8], any Error>
        private let streamContinuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
        private let connectContinuation = Mutex<CheckedContinuation<AsyncTLSConnection, any Error>?>(nil)
        private let reason = Mutex<CloseReason?>(nil)
        /// Set once the connection has closed (after ``closeReason`` is recorded).
        let closed = Latch()

        init() {
            (stream, streamContinuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        }

        var closeReason: CloseReason? { reason.withLock { $0 } }

        func setConnectContinuation(_ continuation: CheckedContinuation<AsyncTLSConnection, any Error>) {
            connectContinuation.withLock { $0 = continuation }
        }

        func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
            let continuation = connectContinuation.withLock { slot in
                let taken = slot
                slot = nil
                return taken
            }
            continuation?.resume(returning: AsyncTLSConnection(connection: connection, info: info, bridge: self))
        }

        func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
            streamContinuation.yield(Array(bytes))
        }

        func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
            self.reason.withLock { $0 = reason }
            closed.set()
            let continuation = connectContinuation.withLock { slot in
                let taken = slot
                slot = nil
                return taken
            }
            if let continuation {
                switch reason {
                case .connectFailed(let error), .handshakeFailed(let error), .ioError(let error):
                    continuation.resume(throwing: error)
                default:
                    continuation.resume(throwing: TransportError(.handshakeFailed, "the connection closed before the handshake finished: \(reason)"))
                }
            }
            switch reason {
            case .closedByPeer, .closedLocally:
                streamContinuation.finish()
            case .ioError(let error):
                streamContinuation.finish(throwing: error)
            default:
                streamContinuation.finish(throwing: TransportError(.ioError, "connection closed: \(reason)"))
            }
        }
    }
}
