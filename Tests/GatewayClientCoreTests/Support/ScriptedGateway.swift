import Dispatch
import GatewayWire
import Synchronization

/// The gateway's end of in-memory connections, answering calls as the test's script says: a
/// server-role ``FrameConnection`` per connection on a serial queue of its own. It speaks the
/// real framing (SETTINGS, CALL_START, MESSAGE, HALF_CLOSE, END_OF_CALL, CANCEL) to the
/// client core's channel, so what the core does on the wire is what a test sees here.
final class ScriptedGateway: Sendable {
    /// What the script answers to a call once its request arrived (the client half-closed).
    enum Answer: Sendable {
        /// One response message, then OK.
        case reply(any ProtobufMessage)
        /// No message; the call ends with this status.
        case fail(ReaderGatewayV1.Status)
        /// The call stays open: a subscription (``push(_:)`` sends on it) or a call never answered.
        case hold
        /// `event` on the connection's open subscriptions first, then the call ends with `status`
        /// (a command failing because of what the event says, the event ahead of the error).
        case failAfterEvent(ReaderGatewayV1.SessionEvent, ReaderGatewayV1.Status)
    }

    /// One call as the gateway received it.
    struct Call: Sendable {
        let connection: Int
        let streamID: UInt32
        let path: String
        let request: [UInt8]

        func decode<Request, Response>(_ method: ProtobufMethod<Request, Response>) throws -> Request {
            try method.decodeRequest(request)
        }
    }

    /// What happened at the gateway, in order, for tests to wait on.
    enum Observation: Sendable, Equatable {
        case connected(Int)
        /// A call's request arrived (it is answered right after).
        case called(path: String, connection: Int)
        /// The client cancelled a call (CANCEL), or the call ended without an answer.
        case cancelled(path: String)
        /// The connection ended (dropped here, or closed by the client).
        case disconnected(Int)
    }

    typealias Script = @Sendable (Call) -> Answer

    private struct Connection {
        var frames: FrameConnection
        let toClient: @Sendable ([UInt8]) -> Void
        let dropped: @Sendable () -> Void
        var paths: [UInt32: String] = [:]
        var requests: [UInt32: [UInt8]] = [:]
        var held: Set<UInt32> = []
    }

    private struct State {
        var connections: [Int: Connection] = [:]
        var nextID = 1
        var calls: [Call] = []
    }

    let queue = DispatchQueue(label: "scripted gateway")
    private let script: Script
    private let state = Mutex(State())
    /// Every observation, in order (single consumer: ``next(_:)``).
    let observations: AsyncStream<Observation>
    private let observe: AsyncStream<Observation>.Continuation

    init(_ script: @escaping Script) {
        self.script = script
        (observations, observe) = AsyncStream.makeStream(of: Observation.self)
    }

    /// Every call received so far, in order.
    var calls: [Call] { state.withLock { $0.calls } }

    // MARK: the client ends' side

    /// A new connection: its id. Nothing is sent before ``start(_:)``.
    func accept(toClient: @escaping @Sendable ([UInt8]) -> Void, dropped: @escaping @Sendable () -> Void) -> Int {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            let configuration = ConnectionConfiguration(role: .server, localSettings: ConnectionSettings(), keepalive: nil)
            state.connections[state.nextID] = Connection(frames: FrameConnection(configuration: configuration, now: .now), toClient: toClient, dropped: dropped)
            return state.nextID
        }
        observe.yield(.connected(id))
        return id
    }

    /// Sends the connection's opening frames (its SETTINGS).
    func start(_ id: Int) {
        queue.async { [self] in flush(id) }
    }

    /// Bytes the client wrote on connection `id`.
    func received(_ bytes: [UInt8], on id: Int) {
        queue.async { [self] in receive(bytes, on: id) }
    }

    /// The client closed connection `id`.
    func clientClosed(_ id: Int) {
        queue.async { [self] in
            guard state.withLock({ $0.connections.removeValue(forKey: id) }) != nil else { return }
            observe.yield(.disconnected(id))
        }
    }

    // MARK: the test's side

    /// Sends `event` on every open `SubscribeEvents` call.
    func push(_ event: ReaderGatewayV1.SessionEvent) {
        queue.async { [self] in
            let path = ReaderGatewayV1.Sdk.subscribeEvents.path
            let ids = state.withLock { state -> [Int] in
                for (id, connection) in state.connections {
                    for stream in connection.held where connection.paths[stream] == path {
                        _ = try? state.connections[id]?.frames.send(event, on: stream)
                    }
                }
                return Array(state.connections.keys)
            }
            for id in ids { flush(id) }
        }
    }

    /// Drops every connection at once, as a network that goes away: the client hears its
    /// connection closed by the peer, with no goodbye.
    func dropConnections() {
        queue.async { [self] in
            let dropped = state.withLock { state in
                defer { state.connections = [:] }
                return state.connections
            }
            for (id, connection) in dropped.sorted(by: { $0.key < $1.key }) {
                connection.dropped()
                observe.yield(.disconnected(id))
            }
        }
    }

    /// The next observation that `matches`, skipping the others.
    func next(_ matches: (Observation) -> Bool) async -> Observation? {
        for await observation in observations where matches(observation) { return observation }
        return nil
    }

    // MARK: on the queue

    private func receive(_ bytes: [UInt8], on id: Int) {
        var ready: [Call] = []
        var cancelled: [String] = []
        let known = state.withLock { state -> Bool in
            guard var connection = state.connections[id] else { return false }
            defer { state.connections[id] = connection }
            for event in connection.frames.receive(bytes, now: .now) {
                switch event {
                case .callStarted(let stream, let start, _):
                    connection.paths[stream] = start.method
                case .message(let stream, let payload):
                    connection.requests[stream] = payload
                    connection.frames.messageConsumed(stream, byteCount: payload.count)
                case .halfClosed(let stream):
                    let call = Call(connection: id, streamID: stream, path: connection.paths[stream] ?? "", request: connection.requests[stream] ?? [])
                    state.calls.append(call)
                    ready.append(call)
                case .callCancelled(let stream, _):
                    connection.held.remove(stream)
                    cancelled.append(connection.paths[stream] ?? "")
                default:
                    break
                }
            }
            return true
        }
        guard known else { return }
        for path in cancelled { observe.yield(.cancelled(path: path)) }
        for call in ready {
            observe.yield(.called(path: call.path, connection: id))
            let answer = script(call)
            state.withLock { state in
                switch answer {
                case .reply(let message):
                    _ = try? state.connections[id]?.frames.send(serialized: message.serializedBytes(), on: call.streamID)
                    _ = try? state.connections[id]?.frames.endCall(call.streamID, status: .ok)
                case .fail(let status):
                    _ = try? state.connections[id]?.frames.endCall(call.streamID, status: status)
                case .hold:
                    state.connections[id]?.held.insert(call.streamID)
                case .failAfterEvent(let event, let status):
                    let subscriptions = state.connections[id].map { connection in
                        connection.held.filter { connection.paths[$0] == ReaderGatewayV1.Sdk.subscribeEvents.path }
                    } ?? []
                    for stream in subscriptions { _ = try? state.connections[id]?.frames.send(event, on: stream) }
                    _ = try? state.connections[id]?.frames.endCall(call.streamID, status: status)
                }
            }
        }
        flush(id)
    }

    /// Hands what connection `id` queued to its client end.
    private func flush(_ id: Int) {
        let (bytes, toClient) = state.withLock { state -> ([UInt8], (@Sendable ([UInt8]) -> Void)?) in
            guard var connection = state.connections[id], connection.frames.hasOutbound else { return ([], nil) }
            defer { state.connections[id] = connection }
            return (connection.frames.takeOutbound(), connection.toClient)
        }
        if let toClient, !bytes.isEmpty { toClient(bytes) }
    }
}
