import Glibc
import GatewayClient
import GatewayWire
import Synchronization

/// Serves a ``SimulatedBluetoothAir`` to point-of-sale devices in other processes over a
/// Unix-domain socket (``BluetoothAirSocketRadio`` is the other end): `reader-sim
/// --bluetooth-air PATH` hosts the readers, `pos-lane --bluetooth-air PATH` scans, pairs and
/// connects them as it would with an in-process ``SimulatedRadio``.
///
/// Each accepted socket is one device (its `hello`). Bad input gets a `failure` reply and the
/// socket carries on (a broken framing closes that socket alone). A socket that ends — the
/// device's process died — ends its Bluetooth connections with `bluetoothSignalLost`, as a
/// phone that disappears does.
public final class SimulatedBluetoothAirServer: Sendable {
    /// What happened on the air, for the simulator to print.
    public enum Event: Sendable {
        case deviceArrived(device: String)
        case deviceLeft(device: String, error: String?)
        case connected(serial: String, device: String)
        case disconnected(serial: String, device: String, reason: ReaderGatewayV1.MobileDisconnectReason)
        case pairing(serial: String, device: String, passkey: String)
        case commandStarted(serial: String, command: ReaderGatewayV1.ReaderCommand)
        case updateProgress(serial: String, version: String, progress: Float)
        case commandFinished(serial: String, command: ReaderGatewayV1.ReaderCommand, result: ReaderGatewayV1.CommandResult)
        case badInput(device: String, message: String)
    }

    public let air: SimulatedBluetoothAir
    public let path: String
    let listener: Int32
    /// Where the listening descriptor stands. Its `shutdown(2)` and `close(2)` happen under
    /// this lock, once each, so a second ``close()`` never touches a number the process has
    /// since handed to another socket.
    private let listenerState = Mutex(ListenerState.listening)
    private enum ListenerState { case listening, stopping, closed }

    /// Whether the accepting thread has closed the listening descriptor (after ``close()``).
    var isListenerClosed: Bool { listenerState.withLock { $0 == .closed } }
    private let onEvent: @Sendable (Event) -> Void
    private let nextHandle = Atomic<UInt32>(0)
    /// The devices' sockets, by descriptor, while they are open.
    private let sockets = Mutex<[Int32: BluetoothAirSocket]>([:])
    /// Called before each software update installs (reader-sim's `--fail-updates` arms the failure).
    private let beforeInstall: @Sendable (String) -> Void

    /// Listens at `path` (a stale socket file from a simulator that is gone is replaced).
    public init(
        air: SimulatedBluetoothAir, path: String, beforeInstall: @escaping @Sendable (String) -> Void = { _ in },
        onEvent: @escaping @Sendable (Event) -> Void
    ) throws(BluetoothError) {
        self.air = air
        self.path = path
        self.onEvent = onEvent
        self.beforeInstall = beforeInstall
        listener = try BluetoothAirSocket.listen(path: path)
        let server = self
        startThread { server.acceptLoop() }
    }

    /// Stops accepting, removes the socket file and closes every device's socket (their
    /// Bluetooth connections end as a lost signal, as when the simulator dies).
    public func close() {
        let first = listenerState.withLock { state in
            guard state == .listening else { return false }
            state = .stopping
            Glibc.shutdown(listener, Int32(SHUT_RDWR))
            return true
        }
        guard first else { return }
        unlink(path)
        for socket in sockets.withLock({ Array($0.values) }) { socket.shutDown() }
    }

    private func acceptLoop() {
        while true {
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE {
                    // Out of descriptors: back off instead of spinning; the devices that hold them
                    // come and go.
                    usleep(50_000)
                    continue
                }
                listenerState.withLock { state in
                    state = .closed
                    Glibc.close(listener)
                }
                return
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let socket = BluetoothAirSocket(descriptor: descriptor)
            sockets.withLock { $0[descriptor] = socket }
            BluetoothAirDeviceSocket(server: self, socket: socket).start()
        }
    }

    func emit(_ event: Event) { onEvent(event) }
    func forget(_ socket: BluetoothAirSocket) {
        sockets.withLock { if $0[socket.descriptor] === socket { $0[socket.descriptor] = nil } }
    }
    func newHandle() -> UInt32 { nextHandle.add(1, ordering: .relaxed).newValue }
    func armInstall(_ serial: String) { beforeInstall(serial) }
}
