import Glibc
import GatewayClient
import Synchronization

/// One end of the shared air's Unix-domain socket: blocking reads on a thread of its own
/// (frames handed to `onMessage`), writes of whole frames under a lock.
///
/// The descriptor's number is this socket's only until it is closed; after that the process
/// may hand it to any new socket (a gateway's TLS connection in the same process, say). So
/// every `send`, `shutdown(2)` and the one `close(2)` happen under one lock, and none runs
/// once the descriptor is closed: a late ``shutDown()`` (a radio's `deinit`, a server's
/// `close()`) can never cut someone else's connection.
final class BluetoothAirSocket: Sendable {
    let descriptor: Int32

    private struct State {
        /// False once a send failed or the socket was shut down.
        var sending = true
        /// False once `shutdown(2)` ran on the descriptor.
        var readable = true
        /// False once the descriptor is closed: its number is no longer this socket's.
        var open = true
    }

    private let state = Mutex(State())

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Sends one message; false once the socket is closed or broken.
    @discardableResult
    func send(_ message: BluetoothAirMessage) -> Bool {
        let frame = BluetoothAirCodec.frame(message)
        return state.withLock { state in
            guard state.sending, state.open else { return false }
            var sent = 0
            while sent < frame.count {
                let count = frame[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    state.sending = false
                    return false
                }
                sent += count
            }
            return true
        }
    }

    /// Stops both directions (the reading thread sees the end and closes the descriptor).
    /// Does nothing once the descriptor is closed.
    func shutDown() {
        state.withLock { Self.shutDown(descriptor, &$0) }
    }

    /// Shuts the socket down if it is not yet, then closes the descriptor; once only.
    func close() {
        state.withLock { state in
            Self.shutDown(descriptor, &state)
            guard state.open else { return }
            state.open = false
            Glibc.close(descriptor)
        }
    }

    private static func shutDown(_ descriptor: Int32, _ state: inout State) {
        state.sending = false
        guard state.open, state.readable else { return }
        state.readable = false
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Reads frames on a thread of its own until the end of the stream or a lost framing,
    /// then closes the descriptor and calls `onEnd` (with the error, if any). A malformed
    /// message goes to `onMalformed` (by default answered with a `failure`) and reading goes on.
    func startReading(
        onMessage: @escaping @Sendable (BluetoothAirMessage) -> Void,
        onMalformed: (@Sendable (BluetoothAirProtocolError) -> Void)? = nil,
        onEnd: @escaping @Sendable (BluetoothAirProtocolError?) -> Void
    ) {
        let descriptor = self.descriptor
        startThread {
            var frames = BluetoothAirCodec.FrameReader()
            var buffer = [UInt8](repeating: 0, count: 16_384)
            var failure: BluetoothAirProtocolError?
            reading: while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                frames.append(buffer[0..<count])
                do throws(BluetoothAirProtocolError) {
                    while let payload = try frames.next() {
                        do throws(BluetoothAirProtocolError) {
                            onMessage(try BluetoothAirCodec.decode(payload[...]))
                        } catch {
                            // A malformed message: said, and the socket carries on.
                            if let onMalformed {
                                onMalformed(error)
                            } else {
                                self.send(.failure(call: 0, code: .badRequest, message: error.description))
                            }
                        }
                    }
                } catch {
                    // The framing itself is lost: nothing after it can be read.
                    failure = error
                    break reading
                }
            }
            if let failure { self.send(.failure(call: 0, code: .badRequest, message: failure.description + "; closing this connection")) }
            self.close()
            onEnd(failure)
        }
    }

    // MARK: opening

    /// Connects to the air served at `path`.
    static func connect(path: String) throws(BluetoothError) -> BluetoothAirSocket {
        var address = try socketAddress(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BluetoothError(.bluetoothDisabled, "could not open a Unix socket: errno \(errno)") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(descriptor)
            throw BluetoothError(
                .bluetoothDisabled,
                "no simulated Bluetooth air at \(path) (\(String(cString: strerror(error)))); start `reader-sim --bluetooth-air \(path)` first"
            )
        }
        return BluetoothAirSocket(descriptor: descriptor)
    }

    /// Listens at `path`; a socket file left by a simulator that is gone is replaced, one in use
    /// is not.
    static func listen(path: String) throws(BluetoothError) -> Int32 {
        var address = try socketAddress(path)
        if let stale = try? connect(path: path) {
            stale.close()
            throw BluetoothError(.connectedToAnotherDevice, "another simulator already serves the Bluetooth air at \(path); stop it or choose another path")
        }
        unlink(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BluetoothError(.bluetoothDisabled, "could not open a Unix socket: errno \(errno)") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, 64) == 0 else {
            let error = errno
            Glibc.close(descriptor)
            throw BluetoothError(.bluetoothDisabled, "could not listen at \(path): \(String(cString: strerror(error)))")
        }
        return descriptor
    }

    private static func socketAddress(_ path: String) throws(BluetoothError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else {
            throw BluetoothError(.bluetoothDisabled, "the Bluetooth air's socket path must be 1 to \(capacity - 1) bytes; \"\(path)\" has \(bytes.count)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }
}

/// Runs `body` on a new detached thread (blocking socket work stays off Swift's cooperative pool).
func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { raw in
        Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, box)
    if created == 0 {
        pthread_detach(thread)
    } else {
        Unmanaged<Box>.fromOpaque(box).release()
    }
}
