import Foundation
import GatewayTransport
import GatewayWire
import Synchronization

/// A call's failure as the test client sees it.
struct CallFailure: Error, CustomStringConvertible {
    var status: ReaderGatewayV1.Status
    var reason: ReaderGatewayV1.ErrorReason { status.reason }
    var code: ReaderGatewayV1.StatusCode { status.code }
    var description: String { "\(status.code) / \(status.reason): \(status.message)" }
}

/// What a test call receives.
enum CallEvent: Sendable {
    case message([UInt8])
    case ended(ReaderGatewayV1.Status)
}

/// A minimal client channel for the tests: one TLS connection, a client-role
/// `FrameConnection`, calls as async streams of ``CallEvent``.
///
/// `@unchecked Sendable`: `frames` and `streams` live in the `Mutex`; the TLS
/// connection is itself thread-safe.
final class TestChannel: @unchecked Sendable {
    let tls: AsyncTLSConnection
    private struct State {
        var frames: FrameConnection
        var streams: [UInt32: AsyncStream<CallEvent>.Continuation] = [:]
        /// Every message and end in arrival order: (stream, reason of the end or nil for a message).
        var arrivals: [(UInt32, ReaderGatewayV1.ErrorReason?)] = []
    }

    /// Every message and call end in the order they arrived.
    var arrivals: [(stream: UInt32, endReason: ReaderGatewayV1.ErrorReason?)] { state.withLock { $0.arrivals.map { ($0.0, $0.1) } } }
    private let state: Mutex<State>
    private var pump: Task<Void, Never>?

    private init(tls: AsyncTLSConnection) {
        self.tls = tls
        let clock = ContinuousClock.now
        _ = clock
        state = Mutex(State(frames: FrameConnection(configuration: ConnectionConfiguration(role: .client), now: WireTime.now)))
    }

    /// Connects to the gateway at `port`, trusting `caPath`, optionally with a client certificate.
    static func connect(
        port: Int, caPath: String, certificate: CertificateKeyPair? = nil, sessions: TLSSessionCache? = nil, loop: EventLoop
    ) async throws -> TestChannel {
        let context = try TLSContext(client: TLSClientConfiguration(trustedCAPath: caPath, certificate: certificate))
        let tls = try await AsyncTLSConnection.connect(host: "127.0.0.1", port: port, context: context, sessions: sessions, on: loop)
        let channel = TestChannel(tls: tls)
        channel.flush()
        channel.pump = Task { await channel.readLoop() }
        return channel
    }

    private func readLoop() async {
        do {
            for try await chunk in tls.inbound {
                trace("client read \(chunk.count) bytes port \(tls.info.peer)")
                let events = state.withLock { $0.frames.receive(chunk, now: WireTime.now) }
                dispatch(events)
                flush()
            }
        } catch {}
        dispatch(state.withLock { $0.frames.connectionLost() })
        state.withLock { state in
            for continuation in state.streams.values { continuation.finish() }
            state.streams.removeAll()
        }
    }

    private func dispatch(_ events: [ConnectionEvent]) {
        for event in events {
            switch event {
            case .message(let id, let bytes):
                let continuation = state.withLock { state -> AsyncStream<CallEvent>.Continuation? in
                    state.frames.messageConsumed(id, byteCount: bytes.count)
                    state.arrivals.append((id, nil))
                    return state.streams[id]
                }
                continuation?.yield(.message(bytes))
            case .callEnded(let id, let end):
                let continuation = state.withLock { state in
                    state.arrivals.append((id, end.status?.reason ?? .unspecified))
                    return state.streams.removeValue(forKey: id)
                }
                continuation?.yield(.ended(end.status ?? .ok))
                continuation?.finish()
            default:
                break
            }
        }
    }

    /// Writes what the frame connection queued. Inside the lock, so bytes
    /// taken by concurrent callers reach the loop in the order they were taken.
    private func flush() {
        state.withLock { state in
            let bytes = state.frames.takeOutbound()
            if !bytes.isEmpty { tls.write(bytes) }
        }
    }

    /// Starts a call; returns its id and its events.
    func start(_ path: String, metadata: [ReaderGatewayV1.MetadataEntry] = []) throws -> (UInt32, AsyncStream<CallEvent>) {
        let (stream, continuation) = AsyncStream<CallEvent>.makeStream()
        let id = try state.withLock { state in
            let id = try state.frames.startCall(method: path, metadata: metadata, now: WireTime.now)
            state.streams[id] = continuation
            return id
        }
        flush()
        return (id, stream)
    }

    func send(_ message: some ProtobufMessage, on id: UInt32) throws {
        try state.withLock { _ = try $0.frames.send(message, on: id) }
        flush()
    }

    func halfClose(_ id: UInt32) throws {
        try state.withLock { try $0.frames.halfClose(id) }
        flush()
    }

    func cancel(_ id: UInt32) {
        let continuation = state.withLock { state in
            _ = state.frames.cancel(id)
            return state.streams.removeValue(forKey: id)
        }
        continuation?.finish()
        flush()
    }

    /// One unary call: the response, or the failure status.
    func unary<Request, Response>(
        _ method: ProtobufMethod<Request, Response>,
        _ request: Request,
        metadata: [ReaderGatewayV1.MetadataEntry] = []
    ) async throws -> Response {
        let (id, events) = try start(method.path, metadata: metadata)
        trace("client start \(method.path) stream \(id) port \(tls.info.peer)")
        defer { trace("client done \(method.path) stream \(id) port \(tls.info.peer)") }
        // The server may answer before the half-close; the call is then already closed here.
        try? send(request, on: id)
        try? halfClose(id)
        var response: Response?
        for await event in events {
            switch event {
            case .message(let bytes):
                response = try Response(serializedBytes: bytes)
            case .ended(let status):
                guard status.code == .ok else { throw CallFailure(status: status) }
                guard let response else { throw CallFailure(status: ReaderGatewayV1.Status(.internal, "OK without a response")) }
                return response
            }
        }
        throw CallFailure(status: ReaderGatewayV1.Status(.connectionLost, "the connection closed"))
    }

    func close() {
        pump?.cancel()
        tls.close(graceful: false)
    }
}


/// Metadata `authorization: Bearer <key>`.
func bearer(_ key: String) -> [ReaderGatewayV1.MetadataEntry] {
    var entry = ReaderGatewayV1.MetadataEntry()
    entry.key = "authorization"
    entry.value = Array("Bearer \(key)".utf8)
    return [entry]
}

let traceEnabled = ProcessInfo.processInfo.environment["GATEWAY_TEST_TRACE"].map { $0 != "debug" } ?? false
func trace(_ message: @autoclosure () -> String) {
    if traceEnabled { FileHandle.standardError.write(Data((message() + "\n").utf8)) }
}
