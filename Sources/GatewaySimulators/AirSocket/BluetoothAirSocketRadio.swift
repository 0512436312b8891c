import Dispatch
import GatewayClient
import GatewayWire
import Synchronization

/// A point-of-sale device's radio in a simulated Bluetooth air that another process hosts
/// (`reader-sim --bluetooth-air PATH`, a ``SimulatedBluetoothAirServer``): scan, proximity,
/// pairing, connect, commands, updates and disconnect reasons behave as with an in-process
/// ``SimulatedRadio``; the readers are driven in the hosting process.
///
/// When the hosting process goes away, open Bluetooth connections end with
/// `bluetoothSignalLost` and requests fail with `disconnected`.
public final class BluetoothAirSocketRadio: BluetoothRadio {
    public let deviceID: String
    public let path: String
    let socket: BluetoothAirSocket

    struct State {
        var nextCall: UInt32 = 0
        /// Reply handlers by call; `progress` and `advertisements` keep theirs, any other reply
        /// removes it.
        var replies: [UInt32: @Sendable (BluetoothAirMessage) -> Void] = [:]
        var open: Set<UInt32> = []
        var ended: [UInt32: ReaderGatewayV1.MobileDisconnectReason] = [:]
        var endWaiters: [UInt32: [CheckedContinuation<ReaderGatewayV1.MobileDisconnectReason, Never>]] = [:]
        /// Why the socket ended; nil while it is up.
        var broken: String?
    }

    let state = Mutex(State())

    /// Connects to the air at `path` as the device `deviceID`.
    public init(path: String, deviceID: String) throws(BluetoothError) {
        self.path = path
        self.deviceID = deviceID
        socket = try BluetoothAirSocket.connect(path: path)
        socket.startReading { [weak self] message in
            self?.received(message)
        } onEnd: { [weak self] error in
            self?.lost(error.map { "the air's input was malformed: \($0)" } ?? "the simulator hosting the Bluetooth air at \(path) went away")
        }
        socket.send(.hello(device: deviceID))
    }

    deinit { socket.shutDown() }

    public func advertisements() -> AsyncStream<[BluetoothAdvertisement]> {
        let (stream, sink) = AsyncStream<[BluetoothAdvertisement]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let call = newCall()
        register(call) { message in
            switch message {
            case .advertisements(_, let list): sink.yield(list)
            default: sink.finish()
            }
        }
        sink.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = state.withLock { $0.replies.removeValue(forKey: call) }
            socket.send(.unwatch(call: call))
        }
        send(.watch(call: call), call)
        return stream
    }

    public func readBatteryLevel(serialNumber: String) async throws(BluetoothError) -> Float? {
        let call = newCall()
        let reply = await ask(call, .readBattery(call: call, serial: serialNumber))
        switch reply {
        case .batteryLevel(_, let level): return level
        default: throw Self.error(reply)
        }
    }

    public func connect(serialNumber: String, timeout: Duration) async throws(BluetoothError) -> any BluetoothPeripheral {
        let call = newCall()
        let milliseconds = UInt32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let reply = await withTaskCancellationHandler {
            await ask(call, .connect(call: call, serial: serialNumber, timeoutMilliseconds: milliseconds))
        } onCancel: {
            socket.send(.cancel(call: call))
        }
        guard case .connected(_, let handle, let type, let version) = reply else { throw Self.error(reply) }
        let broken = state.withLock { state -> Bool in
            if state.broken == nil { state.open.insert(handle) }
            return state.broken != nil
        }
        if broken { throw BluetoothError(.disconnected, "the simulated Bluetooth air at \(path) went away while connecting") }
        return BluetoothAirSocketPeripheral(radio: self, handle: handle, serialNumber: serialNumber, deviceType: type, softwareVersion: version)
    }

    // MARK: requests and replies

    func newCall() -> UInt32 {
        state.withLock { state in
            state.nextCall &+= 1
            if state.nextCall == 0 { state.nextCall = 1 }
            return state.nextCall
        }
    }

    /// Registers `handler` for the replies to `call` (answered at once with a failure when
    /// the socket is gone).
    func register(_ call: UInt32, _ handler: @escaping @Sendable (BluetoothAirMessage) -> Void) {
        let broken = state.withLock { state -> String? in
            if state.broken == nil { state.replies[call] = handler }
            return state.broken
        }
        if let broken { handler(.failure(call: call, code: .disconnected, message: broken)) }
    }

    func send(_ message: BluetoothAirMessage, _ call: UInt32) {
        guard !socket.send(message) else { return }
        let handler = state.withLock { $0.replies.removeValue(forKey: call) }
        handler?(.failure(call: call, code: .disconnected, message: "the simulated Bluetooth air at \(path) is gone; start reader-sim again"))
    }

    /// Sends a request and awaits its one reply.
    func ask(_ call: UInt32, _ message: BluetoothAirMessage) async -> BluetoothAirMessage {
        await withCheckedContinuation { continuation in
            register(call) { continuation.resume(returning: $0) }
            send(message, call)
        }
    }

    /// Sends a request and blocks this thread for its reply (the protocol's synchronous
    /// getters); nil when none came within 5 seconds.
    func askBlocking(_ call: UInt32, _ message: BluetoothAirMessage) -> BluetoothAirMessage? {
        let reply = Mutex<BluetoothAirMessage?>(nil)
        let arrived = DispatchSemaphore(value: 0)
        register(call) { message in
            reply.withLock { $0 = message }
            arrived.signal()
        }
        send(message, call)
        guard arrived.wait(timeout: .now() + .seconds(5)) == .success else {
            _ = state.withLock { $0.replies.removeValue(forKey: call) }
            return nil
        }
        return reply.withLock { $0 }
    }

    func waitEnded(_ handle: UInt32) async -> ReaderGatewayV1.MobileDisconnectReason {
        await withCheckedContinuation { waiter in
            let ended = state.withLock { state -> ReaderGatewayV1.MobileDisconnectReason? in
                if let reason = state.ended[handle] { return reason }
                state.endWaiters[handle, default: []].append(waiter)
                return nil
            }
            if let ended { waiter.resume(returning: ended) }
        }
    }

    private func received(_ message: BluetoothAirMessage) {
        let call: UInt32
        switch message {
        case .ended(let handle, let reason):
            end(handle, reason)
            return
        case .welcome, .failure(0, _, _):
            return
        case .advertisements(let number, _), .progress(let number, _):
            call = number
            let handler = state.withLock { $0.replies[call] }
            handler?(message)
            return
        case .batteryLevel(let number, _), .connected(let number, _, _, _), .state(let number, _, _, _), .passkey(let number, _),
             .answer(let number, _, _), .result(let number, _), .failure(let number, _, _):
            call = number
        case .hello, .watch, .unwatch, .readBattery, .connect, .cancel, .readState, .beginPairing, .pairingAnswer, .bond, .run, .disconnect, .reboot:
            return
        }
        let handler = state.withLock { $0.replies.removeValue(forKey: call) }
        handler?(message)
    }

    private func end(_ handle: UInt32, _ reason: ReaderGatewayV1.MobileDisconnectReason) {
        let waiters = state.withLock { state -> [CheckedContinuation<ReaderGatewayV1.MobileDisconnectReason, Never>] in
            state.open.remove(handle)
            state.ended[handle] = reason
            return state.endWaiters.removeValue(forKey: handle) ?? []
        }
        for waiter in waiters { waiter.resume(returning: reason) }
    }

    /// The socket ended: every request fails, every Bluetooth connection ends as a lost signal.
    private func lost(_ why: String) {
        let (handlers, open) = state.withLock { state in
            state.broken = why
            defer { state.replies = [:] }
            return (state.replies, state.open)
        }
        for (call, handler) in handlers { handler(.failure(call: call, code: .disconnected, message: why)) }
        for handle in open { end(handle, .bluetoothSignalLost) }
    }

    static func error(_ reply: BluetoothAirMessage) -> BluetoothError {
        guard case .failure(_, let code, let message) = reply else {
            return BluetoothError(.disconnected, "the simulated Bluetooth air answered out of turn: \(reply)")
        }
        return BluetoothError(code.bluetoothCode, message)
    }
}
