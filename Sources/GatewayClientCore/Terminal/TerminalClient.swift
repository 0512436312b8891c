import GatewayChannel
import GatewayWire
import Synchronization

/// A point-of-sale lane's client, shaped like Stripe Terminal's SDK.
///
/// ```swift
/// let terminal = TerminalClient(connection: GatewayConnection(configuration))
/// try await terminal.openSession(connectionToken: token, posDeviceID: "pos-3", laneLabel: "Lane 3")
/// let readers = try await terminal.discoverReaders(InternetDiscoveryConfiguration(locationID: "tml_1"))
/// do {
///     try await terminal.connectReader(readers[0], connectionConfig: .init(failIfInUse: true))
/// } catch let error as TerminalError where error.code == .readerBusy {
///     // ask the user, then take it over:
///     try await terminal.connectReader(readers[0], connectionConfig: .init(failIfInUse: false))
/// }
/// for await event in terminal.events { ... }
/// ```
///
/// Heartbeats keep the session's lease alive in the background; when the connection drops,
/// the client reconnects and resumes the session (keeping its reader) within the lease.
///
/// Every call throws a ``TerminalError`` (and nothing else): Terminal iOS's code (`readerBusy`,
/// `canceled`, `readerConnectedToAnotherDevice` with who took the reader, ...) and the
/// gateway's precise error as its ``TerminalError/underlying``. The calls are declared plain
/// `throws`: Swift 6.3's compiler can crash on a partial `catch where` over a typed throw, which
/// is how an app handles `readerBusy`.
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
    /// What the delegates hear, handed over in order on the main actor (``MainActorDelivery``).
    let mainActorSink: AsyncStream<MainActorDelivery>.Continuation
    /// The session and its reader (``TerminalSessionStateMachine``), behind its own lock.
    private let sessionState = Mutex(TerminalSessionStateMachine())
    /// The phone's own Tap to Pay reader and its reconnect (``TapToPayClientStateMachine``).
    private let tapToPayState = Mutex(TapToPayState())
    /// The Bluetooth discoveries and readers (``BluetoothClientState``).
    private let bluetoothState = Mutex(BluetoothClientState())

    /// What the client holds of the phone's own Tap to Pay reader.
    typealias TapToPayState = TapToPayClientStateMachine<TapToPayReader>

    /// Feeds one event to the session's machine under its lock and returns what it asks for;
    /// the caller acts on it (calls, events, resumptions) after the lock is released. The
    /// machine's fields are read-only from here: events are its methods.
    func feedSession<Action: Sendable>(_ event: (inout TerminalSessionStateMachine) -> Action) -> Action {
        sessionState.withLock { event(&$0) }
    }

    /// Feeds one event to the Tap to Pay machine (see ``feedSession(_:)``).
    func feedTapToPay<Action: Sendable>(_ event: (inout TapToPayState) -> Action) -> Action {
        tapToPayState.withLock { event(&$0) }
    }

    /// Feeds one event to the Bluetooth state (see ``feedSession(_:)``).
    func feedBluetooth<Action: Sendable>(_ event: (inout BluetoothClientState) -> Action) -> Action {
        bluetoothState.withLock { event(&$0) }
    }

    /// Ends ``lostEventGrace`` before the client reports a loss itself: the clock, in every
    /// client the public initializer makes (see ``LostEventGrace``).
    let lostEventGraceWait: LostEventGrace
    /// Where sessions come from when the app does not open them itself.
    let providedSessions: ProvidedSessions?

    public convenience init(connection: GatewayConnection, callTimeout: Duration = .seconds(15), paymentTimeout: Duration = .seconds(300)) {
        self.init(connection: connection, callTimeout: callTimeout, paymentTimeout: paymentTimeout, lostEventGrace: .clock)
    }

    /// A client that opens its sessions itself with tokens from `tokenProvider` (Stripe's
    /// `Terminal.setTokenProvider`): the first call that needs a session opens one, and so
    /// does the first after the gateway ended it or the app closed it.
    ///
    /// - Parameters:
    ///   - posDeviceID: a stable id of the point-of-sale device (survives app restarts).
    ///   - laneLabel: the lane's label ("Lane 3"), shown to another lane that takes its reader.
    public convenience init(
        connection: GatewayConnection, tokenProvider: any ConnectionTokenProvider, posDeviceID: String, laneLabel: String,
        callTimeout: Duration = .seconds(15), paymentTimeout: Duration = .seconds(300)
    ) {
        self.init(
            connection: connection, callTimeout: callTimeout, paymentTimeout: paymentTimeout, lostEventGrace: .clock,
            providedSessions: ProvidedSessions(provider: tokenProvider, posDeviceID: posDeviceID, laneLabel: laneLabel)
        )
    }

    /// The designated initializer, with the one seam the public one fills in.
    ///
    /// - Parameter lostEventGrace: when the client may report a loss the gateway did not
    ///   (``LostEventGrace/clock``: after ``lostEventGrace``).
    init(
        connection: GatewayConnection, callTimeout: Duration, paymentTimeout: Duration, lostEventGrace: LostEventGrace,
        providedSessions: ProvidedSessions? = nil
    ) {
        self.providedSessions = providedSessions
        self.connection = connection
        self.callTimeout = callTimeout
        self.paymentTimeout = paymentTimeout
        self.lostEventGraceWait = lostEventGrace
        (events, eventSink) = AsyncStream.makeStream(of: TerminalEvent.self, bufferingPolicy: .bufferingNewest(Self.eventBufferLimit))
        let deliveries: AsyncStream<MainActorDelivery>
        (deliveries, mainActorSink) = AsyncStream.makeStream(of: MainActorDelivery.self, bufferingPolicy: .bufferingNewest(Self.eventBufferLimit))
        Task { @MainActor [weak self] in
            for await delivery in deliveries {
                guard let self else { return }
                self.deliverOnMainActor(delivery)
            }
        }
    }

    deinit {
        for task in feedSession({ $0.backgroundTasks }) { task.cancel() }
        eventSink.finish()
        mainActorSink.finish()
    }

    /// Sets the delegate (held weakly).
    public func setDelegate(_ delegate: (any TerminalDelegate)?) {
        feedSession { $0.delegateSet(delegate) }
    }

    /// The open session, if any.
    public var session: TerminalSession? { feedSession { $0.session } }

    /// The connected reader, if any.
    public var connectedReader: Reader? { feedSession { $0.connectedReader }.map(Reader.init) }

    /// `connecting` while a ConnectReader runs (a required update installs during it), then
    /// `connected` once it answered, until the reader is lost or released.
    public var connectionStatus: ConnectionStatus { feedSession { $0.connectionStatus } }

    // MARK: sessions

    /// Opens a session with a connection token your backend minted, then starts the event
    /// stream and heartbeats. Errors: `connectionTokenProviderCompletedWithError` (the token
    /// is invalid or expired).
    @discardableResult
    public func openSession(connectionToken: String, posDeviceID: String, laneLabel: String) async throws -> TerminalSession {
        try await terminalCall { try await open(connectionToken: connectionToken, posDeviceID: posDeviceID, laneLabel: laneLabel, resumeToken: "") }
    }

    /// Resumes a session after the app lost its connection (or restarted within the lease),
    /// keeping its reader. Errors: `sessionExpired` when the lease ran out.
    @discardableResult
    public func resumeSession(resumeToken: String, connectionToken: String, posDeviceID: String, laneLabel: String) async throws -> TerminalSession {
        try await terminalCall { try await open(connectionToken: connectionToken, posDeviceID: posDeviceID, laneLabel: laneLabel, resumeToken: resumeToken) }
    }

    /// Opens or resumes the session (the call layer's errors).
    func open(connectionToken: String, posDeviceID: String, laneLabel: String, resumeToken: String) async throws -> TerminalSession {
        let session = try await openSessionCall(connectionToken: connectionToken, posDeviceID: posDeviceID, laneLabel: laneLabel, resumeToken: resumeToken)
        let credentials = TerminalSessionStateMachine.Credentials(connectionToken: connectionToken, posDeviceID: posDeviceID, laneLabel: laneLabel)
        let start = feedSession { $0.opened(session, credentials: credentials) }
        feedTapToPay { $0.sessionOpened() }
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
        // The Tap to Pay machine first: a reconnect that looks meanwhile gives up at once.
        let reader = feedTapToPay { $0.closing() }
        let close = feedSession { $0.closing() }
        reader?.stop()
        // A reconnect waiting for the foreground ends (the machine is idle: it reports nothing).
        wakeTapToPayReconnect()
        for task in close.tasks { task.cancel() }
        guard let token = close.token else { return }
        var request = ReaderGatewayV1.CloseSessionRequest()
        request.sessionToken = token
        _ = try await terminalCall { try await connection.unary(ReaderGatewayV1.Sdk.closeSession, request, timeout: callTimeout, idempotent: true) }
    }
}
