import GatewayTransport
import GatewayWire
import Synchronization

/// The load side of the benchmark, kept as light as transport-load: readers and lanes are
/// transport handlers driving a client `FrameConnection` on their event loop, no tasks.
///
/// `@unchecked Sendable` (both classes): every `var` is touched only on the connection's
/// event loop (transport callbacks).
final class LeanReader: ConnectionHandler, @unchecked Sendable {
    let serial: String
    private var frames = FrameConnection(configuration: ConnectionConfiguration(role: .client), now: WireTime.now)
    private var call: UInt32 = 0
    private var events: [ConnectionEvent] = []
    private var outbound: [UInt8] = []
    /// The answer being written, reused for every command.
    private var answer: [UInt8] = []

    init(serial: String) {
        self.serial = serial
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        call = (try? frames.startCall(method: ReaderGatewayV1.ReaderLink.attach.path, now: WireTime.now)) ?? 0
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = serial
        hello.deviceType = .simulatedWiseposE
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .hello(hello)
        _ = try? frames.send(uplink, on: call)
        write(connection)
    }

    private func write(_ connection: TLSConnection) {
        frames.takeOutbound(into: &outbound)
        connection.write(outbound)
    }

    /// Every command answered OK at once, without decoding the whole downlink: its command id
    /// read where it lies and the answer written from a template (``LeanCommandAnswer``).
    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        events.removeAll(keepingCapacity: true)
        frames.receive(bytes, now: WireTime.now, into: &events)
        for event in events {
            guard case .message(let id, let payload) = event else { continue }
            frames.messageConsumed(id, byteCount: payload.count)
            guard let commandID = LeanCommandAnswer.commandID(downlink: payload) else { continue }
            answer.removeAll(keepingCapacity: true)
            LeanCommandAnswer.appendOK(commandID: commandID, to: &answer)
            _ = try? frames.send(serialized: answer, on: call)
        }
        if frames.hasOutbound { write(connection) }
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {}
}

/// A lane sending one unary call in a closed loop with an existing session's token:
/// SetReaderDisplay (relay mode) or ConnectReader (connect mode with lean lanes).
final class LeanLane: ConnectionHandler, @unchecked Sendable {
    let request: [UInt8]
    /// The method path, made once (ProtobufMethod.path builds the string each time).
    let method: String
    let counter: RoundTripCounter
    private var frames = FrameConnection(configuration: ConnectionConfiguration(role: .client), now: WireTime.now)
    private var events: [ConnectionEvent] = []
    private var outbound: [UInt8] = []

    init(method: String, request: [UInt8], counter: RoundTripCounter) {
        self.method = method
        self.request = request
        self.counter = counter
    }

    convenience init(sessionToken: String, counter: RoundTripCounter) {
        self.init(method: ReaderGatewayV1.Sdk.setReaderDisplay.path, request: Self.setReaderDisplayRequest(sessionToken: sessionToken), counter: counter)
    }

    /// The request every relay lane sends: a one-line cart.
    static func setReaderDisplayRequest(sessionToken: String) -> [UInt8] {
        var message = ReaderGatewayV1.SetReaderDisplayRequest()
        message.sessionToken = sessionToken
        var cart = ReaderGatewayV1.Cart()
        cart.currency = "usd"
        cart.total = 1299
        message.cart = cart
        return message.serializedBytes()
    }

    /// ConnectReader of `reader` (from discovery `discoveryID`) for the session, failIfInUse false.
    static func connecting(sessionToken: String, reader: String, discoveryID: String, counter: RoundTripCounter) -> LeanLane {
        var message = ReaderGatewayV1.ConnectReaderRequest()
        message.sessionToken = sessionToken
        message.readerID = reader
        message.discoveryID = discoveryID
        message.failIfInUse = false
        return LeanLane(method: ReaderGatewayV1.Sdk.connectReader.path, request: message.serializedBytes(), counter: counter)
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        counter.opened.add(1, ordering: .relaxed)
        next(connection)
    }

    private func next(_ connection: TLSConnection) {
        guard !counter.stop.load(ordering: .relaxed) else { return }
        guard let id = try? frames.startCall(method: method, now: WireTime.now) else { return }
        _ = try? frames.send(serialized: request, on: id)
        try? frames.halfClose(id)
        write(connection)
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        var finished = 0
        events.removeAll(keepingCapacity: true)
        frames.receive(bytes, now: WireTime.now, into: &events)
        for event in events {
            switch event {
            case .message(let id, let payload):
                frames.messageConsumed(id, byteCount: payload.count)
            case .callEnded(_, let end):
                if end.status?.code ?? .ok == .ok {
                    counter.all.add(1, ordering: .relaxed)
                    if counter.measuring.load(ordering: .relaxed) { counter.count.add(1, ordering: .relaxed) }
                } else {
                    counter.failures.add(1, ordering: .relaxed)
                }
                finished += 1
            default:
                break
            }
        }
        for _ in 0..<finished { next(connection) }
        if frames.hasOutbound { write(connection) }
    }

    private func write(_ connection: TLSConnection) {
        frames.takeOutbound(into: &outbound)
        connection.write(outbound)
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {}
}

/// Shared counters of the lean lanes.
final class RoundTripCounter: Sendable {
    let count = Atomic<Int>(0)
    /// Every completed operation, counted or not (the warm-up's too: for counts that cover the
    /// whole run, such as instructions under callgrind).
    let all = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let opened = Atomic<Int>(0)
    let measuring = Atomic<Bool>(false)
    let stop = Atomic<Bool>(false)
}

