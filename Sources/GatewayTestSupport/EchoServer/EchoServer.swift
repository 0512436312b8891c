import Foundation
import GatewayTransport
import GatewayWire
import Synchronization

/// A small call server for channel tests: a server-role ``FrameConnection`` per TLS connection.
///
/// Methods (messages are `Location`s; `display_name` carries the payload):
/// - `/test.Echo/Unary`: answers with the request.
/// - `/test.Echo/Fail`: ends with `ABORTED` / `READER_BUSY`.
/// - `/test.Echo/Never`: never answers (deadline and cancel tests).
/// - `/test.Echo/Held`: answers when ``releaseHeld()`` is called (GOAWAY tests).
/// - `/test.Echo/Expand`: server streaming, `display_name` = "N": N messages "0"..."N-1".
/// - `/test.Echo/Chat`: bidirectional, echoes each message, ends OK on HALF_CLOSE.
/// - `/test.Echo/Metadata`: answers with the `authorization` metadata value.
package final class EchoServer: Sendable {
    package static let unary = ProtobufMethod<ReaderGatewayV1.Location, ReaderGatewayV1.Location>(service: "test.Echo", method: "Unary", kind: .unary)
    package static let fail = ProtobufMethod<ReaderGatewayV1.Location, ReaderGatewayV1.Location>(service: "test.Echo", method: "Fail", kind: .unary)
    package static let never = ProtobufMethod<ReaderGatewayV1.Location, ReaderGatewayV1.Location>(service: "test.Echo", method: "Never", kind: .unary)
    package static let held = ProtobufMethod<ReaderGatewayV1.Location, ReaderGatewayV1.Location>(service: "test.Echo", method: "Held", kind: .unary)
    package static let expand = ProtobufMethod<ReaderGatewayV1.Location, ReaderGatewayV1.Location>(service: "test.Echo", method: "Expand", kind: .serverStreaming)
    package static let chat = ProtobufMethod<ReaderGatewayV1.Location, ReaderGatewayV1.Location>(service: "test.Echo", method: "Chat", kind: .bidirectionalStreaming)
    package static let metadata = ProtobufMethod<ReaderGatewayV1.Location, ReaderGatewayV1.Location>(service: "test.Echo", method: "Metadata", kind: .unary)

    package static let attach = ReaderGatewayV1.ReaderLink.attach
    /// The only secret key the fake gateway's admin methods accept.
    package static let secretKey = EchoConnection.secretKey

    /// What the server saw, for assertions.
    package struct Record: Sendable {
        package var uplinks: [ReaderGatewayV1.ReaderUplink] = []
        package var openSessions: [ReaderGatewayV1.OpenSessionRequest] = []
        package var subscribers = 0
        package var heartbeats = 0
        /// Commands end with READER_CONNECTED_TO_ANOTHER_SESSION after a `replaced` event.
        package var takeOverOnCommand = false
        /// ConnectReader with fail_if_in_use ends with READER_BUSY.
        package var busyOnFailIfInUse = false
        /// CollectPaymentMethod ends with CARD_DECLINED and this decline code (nil: it reads a card).
        package var declineCollectsWith: String?
        /// Events the next SubscribeEvents stream starts with (what a gateway kept for a
        /// session while it was away).
        package var eventsOnNextSubscribe: [ReaderGatewayV1.SessionEvent] = []
        package var attaches = 0
        package var started = 0
        package var cancelled: [ReaderGatewayV1.Status] = []
        package var connections = 0
        package var maxOpenStreams = 0
    }

    package let group: EventLoopGroup
    package let server: TLSServer
    package let port: Int
    private let recordBoxStorage = RecordBox()
    private let handlersBoxStorage = HandlersBox()

    package init(clientAuthentication: ClientAuthentication = .none) throws {
        let certificates = ClientTestCertificates.shared
        group = try EventLoopGroup(loopCount: 1)
        var configuration = TLSServerConfiguration(host: "127.0.0.1", port: 0, certificates: [certificates.server], clientAuthentication: clientAuthentication)
        configuration.alpnProtocols = ["reader-gateway/1"]
        let recordBox = recordBoxStorage
        let handlersBox = handlersBoxStorage
        server = try TLSServer(configuration: configuration, group: group) { _ in
            let handler = EchoConnection(owner: recordBox)
            handlersBox.add(handler)
            return handler
        }
        port = try server.start().port
    }

    package var snapshot: Record { recordBoxStorage.record.withLock { $0 } }

    /// Sends a graceful GOAWAY on every connection.
    package func goAway() {
        for handler in handlersBoxStorage.all { handler.onLoop { $0.goAway() } }
    }

    /// Answers every held call.
    package func releaseHeld() {
        for handler in handlersBoxStorage.all { handler.onLoop { $0.releaseHeld() } }
    }

    /// Sends a downlink on every open `ReaderLink.Attach` call (a fake gateway for reader-sim).
    package func sendDownlink(_ downlink: ReaderGatewayV1.ReaderDownlink) {
        for handler in handlersBoxStorage.all { handler.onLoop { $0.sendDownlink(downlink) } }
    }

    /// Closes every connection abruptly (no GOAWAY): the clients see CONNECTION_LOST.
    package func dropConnections() {
        for handler in handlersBoxStorage.all { handler.onLoop { $0.connection?.close(graceful: false) } }
    }

    /// Changes the fake gateway's behaviour.
    package func configure(_ body: @Sendable (inout Record) -> Void) {
        recordBoxStorage.record.withLock { body(&$0) }
    }

    /// Stops answering pings and everything else: the connections go silent.
    package func goSilent() {
        for handler in handlersBoxStorage.all { handler.onLoop { $0.silent = true } }
    }

    package func stop() async {
        await server.shutdown(gracePeriod: .milliseconds(200))
        await group.shutdown()
    }
}

/// Shared mutable record between the server and its connections.
final class RecordBox: Sendable {
    let record = Mutex(EchoServer.Record())
}

final class HandlersBox: Sendable {
    private let handlers = Mutex<[EchoConnection]>([])
    func add(_ handler: EchoConnection) { handlers.withLock { $0.append(handler) } }
    var all: [EchoConnection] { handlers.withLock { $0 } }
}

/// One server connection. `@unchecked Sendable`: every property is touched only on the
/// connection's loop thread (transport callbacks, and `onLoop`).
final class EchoConnection: ConnectionHandler, @unchecked Sendable {
    let owner: RecordBox
    var connection: TLSConnection?
    /// Polices pings like the gateway, but at a pace the tests' 300 ms keepalive respects: with
    /// the default policy (one ping per 5 s) a keepalive test could end with TOO_MANY_PINGS
    /// instead of the keepalive timeout it checks, whenever `goSilent()` reaches the loop late.
    var frames = FrameConnection(
        configuration: ConnectionConfiguration(role: .server, pingPolicy: .init(minimumInterval: .milliseconds(100))),
        now: WireTime.now
    )
    var methods: [UInt32: String] = [:]
    var metadata: [UInt32: [ReaderGatewayV1.MetadataEntry]] = [:]
    var subscriberStreams: Set<UInt32> = []
    var held: [UInt32: ReaderGatewayV1.Location] = [:]
    var silent = false

    init(owner: RecordBox) { self.owner = owner }

    func onLoop(_ body: @escaping @Sendable (EchoConnection) -> Void) {
        guard let connection else { return }
        connection.eventLoop.execute { body(self); self.flush() }
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        self.connection = connection
        owner.record.withLock { $0.connections += 1 }
        flush()
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        guard !silent else { return }
        handle(frames.receive(bytes, now: WireTime.now))
        flush()
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        _ = frames.connectionLost()
        self.connection = nil
    }

    func sendDownlink(_ downlink: ReaderGatewayV1.ReaderDownlink) {
        for (id, method) in methods where method == EchoServer.attach.path && frames.isOpen(id) {
            _ = try? frames.send(downlink, on: id)
        }
    }

    func goAway() {
        handle(frames.initiateGracefulShutdown(reason: "test server going away"))
    }

    func releaseHeld() {
        for (id, request) in held.sorted(by: { $0.key < $1.key }) {
            _ = try? frames.send(request, on: id)
            handle((try? frames.endCall(id, status: .ok)) ?? [])
        }
        held = [:]
    }

    func flush() {
        guard let connection, frames.hasOutbound else { return }
        _ = connection.write(frames.takeOutbound())
    }

    func handle(_ events: [ConnectionEvent]) {
        for event in events {
            switch event {
            case .callStarted(let id, let start, _):
                methods[id] = start.method
                metadata[id] = start.metadata
                owner.record.withLock {
                    $0.started += 1
                    $0.maxOpenStreams = max($0.maxOpenStreams, frames.openStreamCount)
                }
                if start.method == EchoServer.metadata.path {
                    var answer = ReaderGatewayV1.Location()
                    answer.displayName = start.metadata.first { $0.key == "authorization" }.map { String(decoding: $0.value, as: UTF8.self) } ?? ""
                    _ = try? frames.send(answer, on: id)
                    handle((try? frames.endCall(id, status: .ok)) ?? [])
                }
            case .message(let id, let bytes):
                frames.messageConsumed(id, byteCount: bytes.count)
                if let path = methods[id], path.hasPrefix("/readergateway.v1.Sdk/") || path.hasPrefix("/readergateway.v1.FleetAdmin/") {
                    answerGateway(id, path: path, bytes)
                    continue
                }
                if methods[id] == EchoServer.attach.path {
                    guard let uplink = try? ReaderGatewayV1.ReaderUplink(serializedBytes: bytes) else { continue }
                    owner.record.withLock { $0.uplinks.append(uplink) }
                    if case .hello(let hello)? = uplink.message {
                        owner.record.withLock { $0.attaches += 1 }
                        var state = ReaderGatewayV1.RegistrationState()
                        if hello.readerCredential.isEmpty {
                            state.registrationCode = "TEST-CODE"
                        } else {
                            state.registered = true
                            state.readerID = "tmr_\(hello.serialNumber)"
                            state.label = "Lane 1"
                        }
                        var downlink = ReaderGatewayV1.ReaderDownlink()
                        downlink.message = .registration(state)
                        _ = try? frames.send(downlink, on: id)
                    }
                    continue
                }
                guard let request = try? ReaderGatewayV1.Location(serializedBytes: bytes) else { continue }
                answer(id, request)
            case .halfClosed(let id):
                if methods[id] == EchoServer.chat.path {
                    handle((try? frames.endCall(id, status: .ok)) ?? [])
                }
            case .callCancelled(let id, let status):
                methods[id] = nil
                held[id] = nil
                owner.record.withLock { $0.cancelled.append(status) }
            case .closed:
                flush()
                connection?.close(graceful: true)
            default:
                break
            }
        }
    }

    private func answer(_ id: UInt32, _ request: ReaderGatewayV1.Location) {
        switch methods[id] {
        case EchoServer.unary.path:
            _ = try? frames.send(request, on: id)
            handle((try? frames.endCall(id, status: .ok)) ?? [])
        case EchoServer.fail.path:
            handle((try? frames.endCall(id, status: ReaderGatewayV1.Status(.readerBusy, "the reader is busy: \(request.displayName)"))) ?? [])
        case EchoServer.held.path:
            held[id] = request
        case EchoServer.expand.path:
            let count = Int(request.displayName) ?? 0
            for index in 0..<count {
                var message = ReaderGatewayV1.Location()
                message.displayName = "\(index)"
                _ = try? frames.send(message, on: id)
            }
            handle((try? frames.endCall(id, status: .ok)) ?? [])
        case EchoServer.chat.path:
            _ = try? frames.send(request, on: id)
        default:
            break
        }
    }
}
