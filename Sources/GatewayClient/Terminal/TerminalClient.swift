import GatewayRPC
import GatewayWire
import Synchronization

/// A point-of-sale lane's client, shaped like Stripe Terminal's SDK.
///
/// ```swift
/// let terminal = TerminalClient(connection: GatewayConnection(configuration))
/// try await terminal.openSession(connectionToken: token, posDeviceID: "pos-3", laneLabel: "Lane 3")
/// let readers = try await terminal.discoverReaders(locationID: "tml_1")
/// do {
///     try await terminal.connectReader(readers[0], failIfInUse: true)
/// } catch let error as RPCError where error.reason == .readerBusy {
///     // ask the user, then take it over:
///     try await terminal.connectReader(readers[0], failIfInUse: false)
/// }
/// for await event in terminal.events { ... }
/// ```
///
/// Heartbeats keep the session's lease alive in the background; when the connection drops,
/// the client reconnects and resumes the session (keeping its reader) within the lease.
public final class TerminalClient: Sendable {
    /// The gateway connection (shareable between lanes).
    public let connection: GatewayConnection
    /// The deadline of ordinary calls.
    public let callTimeout: Duration
    /// The deadline of collect and confirm, which wait for the customer.
    public let paymentTimeout: Duration
    /// Events in order (single consumer). See also ``setDelegate(_:)``.
    ///
    /// Until they are read, at most the latest ``eventBufferLimit`` are kept: an application
    /// that follows the delegate and never reads this stream does not hold every event of the
    /// session's life in memory.
    public let events: AsyncStream<TerminalEvent>
    /// Events kept for ``events`` while nobody reads them; older ones are dropped first.
    public static let eventBufferLimit = 1_024
    let eventSink: AsyncStream<TerminalEvent>.Continuation
    let state = Mutex(State())

    struct WeakDelegate {
        weak var value: (any TerminalDelegate)?
    }

    struct WeakBluetoothConnection {
        weak var value: BluetoothReaderConnection?
    }

    struct State {
        var connectionToken = ""
        var posDeviceID = ""
        var laneLabel = ""
        var session: TerminalSession?
        var connectedReader: ReaderGatewayV1.Reader?
        /// A ConnectReader is running.
        var connecting = false
        /// The ownership generation the session's connect was granted (0: unknown).
        var connectedGeneration: UInt64 = 0
        /// A reader the session was resumed without: its `disconnected` event is awaited
        /// from the gateway for ``lostEventGrace``, then reported by the client.
        var lostReader = LostReaderReport()
        var closed = false
        var disconnectWaiters: [CheckedContinuation<Void, Never>] = []
        /// A `disconnected` event is being handed to the stream and the delegate.
        var deliveringDisconnect = false
        var background: [Task<Void, Never>] = []
        var delegate = WeakDelegate()
        /// The phone's own Tap to Pay reader and its reconnect.
        var tapToPay = TapToPayState()
        /// The Bluetooth readers connected through this client, and its discoveries.
        var bluetooth = BluetoothState()
    }

    /// What the client holds of the phone's own Tap to Pay reader: the reader, how it was
    /// connected, and its reconnect (``TapToPayReconnectStateMachine`` with the conditions a
    /// waiting reconnect looks at). Part of ``State``, under the client's lock.
    struct TapToPayState {
        /// The phone's own reader, once ``connectTapToPayReader(device:_:reader:)`` attached it.
        var reader: TapToPayReader?
        /// How the Tap to Pay reader was connected (what a reconnect repeats).
        var connection: TapToPayConnectionRequest?
        var reconnect = TapToPayReconnectStateMachine()
        /// The app is in the background: the Tap to Pay reader cannot run.
        var inBackground = false
        /// The connection to the gateway dropped and the session is not resumed yet.
        var connectionDown = false
        /// The Tap to Pay reader lost with the connection while auto-reconnect was off: let go
        /// once the session is back.
        var lostWithoutReconnect: (readerID: String, generation: UInt64)?
        /// The app cancelled the running Tap to Pay reconnect.
        var reconnectCancelled = false
        /// The task sending the ending of the Tap to Pay reader's last link (a reconnect on
        /// the same connection awaits it).
        var linkEnding: Task<Void, Never>?
        /// A Tap to Pay reconnect waiting for the foreground, the session, its window or a
        /// cancel: woken on each change, it looks again.
        var reconnectWaiters: [CheckedContinuation<TapToPayReconnectStep, Never>] = []
    }

    /// What the client holds of its Bluetooth readers. Part of ``State``, under the client's
    /// lock.
    struct BluetoothState {
        /// The Bluetooth readers connected through this client: their links are attached
        /// again when the session resumes on a new connection.
        var connections: [WeakBluetoothConnection] = []
        /// Bluetooth discoveries: one at a time, only the latest one's readers connect.
        var discovery = BluetoothDiscoveryStateMachine()
    }

    /// Ends ``lostEventGrace`` before the client reports a loss itself: the clock, in every
    /// client the public initializer makes (see ``LostEventGrace``).
    let lostEventGraceWait: LostEventGrace

    public convenience init(connection: GatewayConnection, callTimeout: Duration = .seconds(15), paymentTimeout: Duration = .seconds(300)) {
        self.init(connection: connection, callTimeout: callTimeout, paymentTimeout: paymentTimeout, lostEventGrace: .clock)
    }

    /// The designated initializer, with the one seam the public one fills in.
    ///
    /// - Parameter lostEventGrace: when the client may report a loss the gateway did not
    ///   (``LostEventGrace/clock``: after ``lostEventGrace``).
    init(connection: GatewayConnection, callTimeout: Duration, paymentTimeout: Duration, lostEventGrace: LostEventGrace) {
        self.connection = connection
        self.callTimeout = callTimeout
        self.paymentTimeout = paymentTimeout
        self.lostEventGraceWait = lostEventGrace
        (events, eventSink) = AsyncStream.makeStream(of: TerminalEvent.self, bufferingPolicy: .bufferingNewest(Self.eventBufferLimit))
    }

    deinit {
        let tasks = state.withLock { $0.background }
        for task in tasks { task.cancel() }
        eventSink.finish()
    }

    /// Sets the delegate (held weakly).
    public func setDelegate(_ delegate: (any TerminalDelegate)?) {
        state.withLock { $0.delegate.value = delegate }
    }

    /// The open session, if any.
    public var session: TerminalSession? { state.withLock { $0.session } }

    /// The connected reader, if any.
    public var connectedReader: ReaderGatewayV1.Reader? { state.withLock { $0.connectedReader } }

    /// `connecting` while a ConnectReader runs (a required update installs during it), then
    /// `connected` once it answered, until the reader is lost or released.
    public var connectionStatus: ConnectionStatus {
        state.withLock { state in
            if state.connecting { return .connecting }
            return state.connectedReader == nil ? .notConnected : .connected
        }
    }

    // MARK: sessions

    /// Opens a session with a connection token your backend minted, then starts the event
    /// stream and heartbeats. Errors: `CONNECTION_TOKEN_INVALID`, `CONNECTION_TOKEN_EXPIRED`.
    @discardableResult
    public func openSession(connectionToken: String, posDeviceID: String, laneLabel: String) async throws -> TerminalSession {
        try await open(connectionToken: connectionToken, posDeviceID: posDeviceID, laneLabel: laneLabel, resumeToken: "")
    }

    /// Resumes a session after the app lost its connection (or restarted within the lease),
    /// keeping its reader. Errors: `SESSION_EXPIRED` when the lease ran out.
    @discardableResult
    public func resumeSession(resumeToken: String, connectionToken: String, posDeviceID: String, laneLabel: String) async throws -> TerminalSession {
        try await open(connectionToken: connectionToken, posDeviceID: posDeviceID, laneLabel: laneLabel, resumeToken: resumeToken)
    }

    private func open(connectionToken: String, posDeviceID: String, laneLabel: String, resumeToken: String) async throws -> TerminalSession {
        let session = try await openSessionCall(connectionToken: connectionToken, posDeviceID: posDeviceID, laneLabel: laneLabel, resumeToken: resumeToken)
        let start = state.withLock { state -> Bool in
            state.connectionToken = connectionToken
            state.posDeviceID = posDeviceID
            state.laneLabel = laneLabel
            state.session = session
            state.connectedReader = session.connectedReader
            state.closed = false
            return state.background.isEmpty
        }
        if start { startBackgroundTasks() }
        return session
    }

    func openSessionCall(connectionToken: String, posDeviceID: String, laneLabel: String, resumeToken: String) async throws -> TerminalSession {
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = connectionToken
        request.posDeviceID = posDeviceID
        request.laneLabel = laneLabel
        request.resumeToken = resumeToken
        let response = try await connection.unary(ReaderGatewayV1.Sdk.openSession, request, timeout: callTimeout, idempotent: !resumeToken.isEmpty)
        return TerminalSession(
            sessionID: response.sessionID,
            resumeToken: response.sessionToken,
            lease: .milliseconds(response.leaseMs),
            resumed: response.resumed,
            connectedReader: response.connectedReader
        )
    }

    /// Closes the session (its reader is released) and stops the background work.
    public func closeSession() async throws {
        let (token, tasks, reader) = state.withLock { state -> (String?, [Task<Void, Never>], TapToPayReader?) in
            state.closed = true
            let tasks = state.background
            state.background = []
            let token = state.session?.resumeToken
            state.session = nil
            state.connectedReader = nil
            let reader = state.tapToPay.reader
            state.tapToPay.reader = nil
            state.tapToPay.reconnect.released()
            return (token, tasks, reader)
        }
        reader?.stop()
        // A reconnect waiting for the foreground ends (the machine is idle: it reports nothing).
        wakeTapToPayReconnect()
        for task in tasks { task.cancel() }
        guard let token else { return }
        var request = ReaderGatewayV1.CloseSessionRequest()
        request.sessionToken = token
        _ = try await connection.unary(ReaderGatewayV1.Sdk.closeSession, request, timeout: callTimeout, idempotent: true)
    }

    /// The session token, or the error for calls made without a session.
    func sessionToken() throws -> String {
        guard let token = state.withLock({ $0.session?.resumeToken }) else {
            throw RPCError(code: .failedPrecondition, reason: .sessionExpired, message: "there is no open session; call openSession first")
        }
        return token
    }
}
