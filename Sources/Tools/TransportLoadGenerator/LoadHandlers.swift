import GatewayTransport
import Synchronization

/// Shared run state: whether the measurement window is open (read on every round trip).
final class RunControl: Sendable {
    let recording = Atomic<Bool>(false)
    let stopping = Atomic<Bool>(false)
    let opened = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
}

/// Closed loop: send `size` bytes, wait for all of them back, record the latency, repeat.
final class RoundTripHandler: ConnectionHandler {
    let statistics: LoopStatistics
    let control: RunControl
    let request: [UInt8]
    var received = 0
    var sentAt: UInt64 = 0

    init(statistics: LoopStatistics, control: RunControl, size: Int) {
        self.statistics = statistics
        self.control = control
        self.request = [UInt8](repeating: 0x61, count: size)
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        control.opened.add(1, ordering: .relaxed)
        send(connection)
    }

    private func send(_ connection: TLSConnection) {
        received = 0
        sentAt = monotonicNanoseconds()
        connection.write(request)
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        received += bytes.count
        guard received >= request.count else { return }
        if control.recording.load(ordering: .relaxed) {
            statistics.roundTrips += 1
            statistics.latencies.append(UInt32(min(monotonicNanoseconds() - sentAt, UInt64(UInt32.max))))
        }
        if control.stopping.load(ordering: .relaxed) {
            connection.close(graceful: false)
        } else {
            send(connection)
        }
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        if !control.stopping.load(ordering: .relaxed) {
            control.failed.add(1, ordering: .relaxed)
            statistics.failures += 1
            statistics.lastFailure = "\(reason)"
        }
    }
}

/// Handshake loop: connect, finish the handshake, close, connect again.
final class HandshakeHandler: ConnectionHandler {
    let statistics: LoopStatistics
    let control: RunControl
    let reconnect: @Sendable () -> Void
    /// Send a byte and close once it is back, rather than at once.
    let echoOnce: Bool

    init(statistics: LoopStatistics, control: RunControl, echoOnce: Bool = false, reconnect: @escaping @Sendable () -> Void) {
        self.statistics = statistics
        self.control = control
        self.echoOnce = echoOnce
        self.reconnect = reconnect
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        if control.recording.load(ordering: .relaxed) {
            statistics.handshakes += 1
            if info.resumed { statistics.resumed += 1 }
        }
        if echoOnce {
            connection.write([0x61])
        } else {
            connection.close(graceful: false)
        }
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        if echoOnce { connection.close(graceful: false) }
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        if reason != .closedLocally {
            statistics.failures += 1
            statistics.lastFailure = "\(reason)"
        }
        if !control.stopping.load(ordering: .relaxed) { reconnect() }
    }
}

/// Idle: open, then hold the connection without traffic.
final class IdleHandler: ConnectionHandler {
    let control: RunControl
    let next: @Sendable () -> Void
    init(control: RunControl, next: @escaping @Sendable () -> Void) {
        self.control = control
        self.next = next
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        control.opened.add(1, ordering: .relaxed)
        next()
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {}

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        if !control.stopping.load(ordering: .relaxed) {
            control.failed.add(1, ordering: .relaxed)
            next()
        }
    }
}
