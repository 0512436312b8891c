import Foundation
import GatewayTransport
import GatewayWire
import Synchronization

/// One simulated reader of the fleet: attaches with its client certificate, heartbeats at the
/// interval on its event loop's timer, answers every command at once, and reconnects (through
/// the launcher's handshake window) when its link ends. No task, no sleep: transport callbacks
/// and loop timers only, so that thousands of readers cost the load process little.
///
/// `@unchecked Sendable`: every `var` is touched only on the connection's event loop (transport
/// callbacks and the timers scheduled on that loop).
final class FleetReader: ConnectionHandler, @unchecked Sendable {
    let serial: String
    let context: TLSContext
    let fleet: Fleet
    private var frames = FrameConnection(configuration: ConnectionConfiguration(role: .client), now: WireTime.now)
    private var call: UInt32 = 0
    private var events: [ConnectionEvent] = []
    private var outbound: [UInt8] = []
    private var connection: TLSConnection?
    private var attached = false
    private var heartbeat: [UInt8] = []
    /// When to dial again after this link ends; handed on to the successor.
    private var backoff: ReconnectBackoff
    /// The reader's last TLS session, offered when it dials again (a resumed handshake instead
    /// of a full one with its certificate); handed on to the successor.
    let sessions: TLSSessionCache

    init(serial: String, context: TLSContext, fleet: Fleet, backoff: ReconnectBackoff? = nil, sessions: TLSSessionCache = TLSSessionCache()) {
        self.serial = serial
        self.context = context
        self.fleet = fleet
        self.backoff = backoff ?? ReconnectBackoff(base: fleet.reconnectDelay, cap: fleet.reconnectDelayMax)
        self.sessions = sessions
    }

    /// A fresh handler for the next connection of the same reader (with its backoff and session).
    func successor() -> FleetReader { FleetReader(serial: serial, context: context, fleet: fleet, backoff: backoff, sessions: sessions) }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        self.connection = connection
        fleet.launcher.handshakeFinished()
        if info.resumed { fleet.resumed.add(1, ordering: .relaxed) }
        call = (try? frames.startCall(method: ReaderGatewayV1.ReaderLink.attach.path, now: WireTime.now)) ?? 0
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = serial
        hello.deviceType = .simulatedWiseposE
        hello.softwareVersion = "fleet-1"
        // As reader-sim and real readers do: the battery comes with the hello, and the first
        // heartbeat's matches it (a level that appears only with the heartbeat is a change,
        // which the gateway writes).
        hello.batteryLevel = 0.8
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .hello(hello)
        _ = try? frames.send(uplink, on: call)
        var beat = ReaderGatewayV1.ReaderHeartbeat()
        beat.activity = .idle
        beat.batteryLevel = 0.8
        var heartbeatUplink = ReaderGatewayV1.ReaderUplink()
        heartbeatUplink.message = .heartbeat(beat)
        heartbeat = heartbeatUplink.serializedBytes()
        flush()
        if fleet.echo { markAttached() }
        scheduleHeartbeat(first: true)
    }

    private func markAttached() {
        guard !attached else { return }
        attached = true
        backoff.reset()
        fleet.attached.add(1, ordering: .relaxed)
    }

    private func scheduleHeartbeat(first: Bool) {
        guard let connection else { return }
        // Spread the fleet's heartbeats over the interval rather than in step.
        let delay = first ? fleet.heartbeatInterval * Double.random(in: 0.05...1) : fleet.heartbeatInterval
        connection.eventLoop.schedule(after: delay) { [self] in
            guard let connection = self.connection else { return }
            _ = try? frames.send(serialized: heartbeat, on: call)
            fleet.heartbeats.add(1, ordering: .relaxed)
            flush()
            _ = connection
            scheduleHeartbeat(first: false)
        }
    }

    private func flush() {
        guard let connection, frames.hasOutbound else { return }
        frames.takeOutbound(into: &outbound)
        _ = connection.write(outbound)
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        // The floor's echo sends the reader's own frames back: nothing to decode.
        guard !fleet.echo else { return }
        events.removeAll(keepingCapacity: true)
        frames.receive(bytes, now: WireTime.now, into: &events)
        for event in events {
            switch event {
            case .message(let id, let payload):
                frames.messageConsumed(id, byteCount: payload.count)
                guard let downlink = try? ReaderGatewayV1.ReaderDownlink(serializedBytes: payload) else { continue }
                switch downlink.message {
                case .registration(let registration)? where registration.registered:
                    markAttached()
                case .command(let command)?:
                    var result = ReaderGatewayV1.CommandResult()
                    result.commandID = command.commandID
                    result.status = .ok
                    var uplink = ReaderGatewayV1.ReaderUplink()
                    uplink.message = .commandResult(result)
                    _ = try? frames.send(uplink, on: call)
                    fleet.commands.add(1, ordering: .relaxed)
                default:
                    break
                }
            case .callEnded:
                // The gateway ended the link (replaced, drained): reconnect.
                connection.close(graceful: true)
            default:
                break
            }
        }
        flush()
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        if self.connection == nil { fleet.launcher.handshakeFinished() }
        self.connection = nil
        if attached {
            attached = false
            fleet.attached.subtract(1, ordering: .relaxed)
        }
        fleet.closes.add(1, ordering: .relaxed)
        guard !fleet.stopping.load(ordering: .relaxed) else { return }
        // As real readers do: a random wait within a window that doubles with each attempt
        // that does not attach (capped exponential backoff, full jitter), so that a storm's
        // retries spread out instead of queueing handshakes at a saturated replica.
        let delay = backoff.nextDelay()
        let next = successor()
        _ = fleet.group.next().schedule(after: delay) {
            next.fleet.launcher.connect(next)
        }
    }
}

/// Counters and settings shared by every reader of this process.
final class Fleet: Sendable {
    let host: String
    let port: Int
    let heartbeatInterval: Duration
    let reconnectDelay: Duration
    let reconnectDelayMax: Duration
    let echo: Bool
    let group: EventLoopGroup
    let launcher: Launcher
    let attached = Atomic<Int>(0)
    let heartbeats = Atomic<Int>(0)
    let commands = Atomic<Int>(0)
    let closes = Atomic<Int>(0)
    /// Handshakes that resumed the reader's previous TLS session.
    let resumed = Atomic<Int>(0)
    /// Whether readers keep their TLS session and offer it when they dial again.
    let resumeSessions: Bool
    let stopping = Atomic<Bool>(false)

    init(
        host: String, port: Int, heartbeatInterval: Duration, reconnectDelay: Duration, reconnectDelayMax: Duration, echo: Bool, group: EventLoopGroup,
        handshakeWindow: Int, resumeSessions: Bool = true
    ) {
        self.resumeSessions = resumeSessions
        self.host = host
        self.port = port
        self.heartbeatInterval = heartbeatInterval
        self.reconnectDelay = reconnectDelay
        self.reconnectDelayMax = reconnectDelayMax
        self.echo = echo
        self.group = group
        launcher = Launcher(window: handshakeWindow)
        launcher.fleet = self
    }
}

/// Opens connections with at most `window` TLS handshakes in flight (the gateway keeps at most
/// 64 per source address in handshake and closes the oldest beyond that).
final class Launcher: @unchecked Sendable {
    // `fleet` is set once in Fleet.init, before any connection; `state` is guarded by its mutex.
    unowned(unsafe) var fleet: Fleet!
    let window: Int
    private let state = Mutex<(inFlight: Int, pending: [FleetReader], head: Int)>((0, [], 0))

    init(window: Int) { self.window = window }

    func connect(_ reader: FleetReader) {
        state.withLock { $0.pending.append(reader) }
        pump()
    }

    func handshakeFinished() {
        state.withLock { $0.inFlight -= 1 }
        pump()
    }

    private func pump() {
        let ready = state.withLock { state -> [FleetReader] in
            var ready: [FleetReader] = []
            while state.inFlight < window, state.head < state.pending.count {
                ready.append(state.pending[state.head])
                state.head += 1
                state.inFlight += 1
            }
            if state.head > 4096, state.head * 2 > state.pending.count {
                state.pending.removeFirst(state.head)
                state.head = 0
            }
            return ready
        }
        var limits = ConnectionLimits()
        limits.idleTimeout = nil
        limits.handshakeTimeout = .seconds(30)
        for reader in ready {
            TLSClient.connect(
                host: fleet.host, port: fleet.port, serverName: "localhost", context: reader.context, limits: limits,
                sessions: fleet.resumeSessions ? reader.sessions : nil, on: fleet.group.next()
            ) { _ in reader }
        }
    }
}
