import GatewayChannel
import GatewayWire

/// The session half of a ``TerminalClient``, as a value: the open session and its reader, the
/// connect running, the loss awaited after a resume, the commands waiting for a loss to be
/// reported. Events in (the session opened, a reader connected, the gateway said the reader
/// is gone), what the client must do out; the client calls the gateway, yields events and
/// resumes waiters after the lock is released.
///
/// ```
///            opened                    sessionEnded / closing
///   closed ─────────► open(session) ─────────────────────────► no session
///                      │  ▲  resumed: keeps its reader, or
///                      │  │  awaits the loss of the one it came back without
///                      └──┘  readerConnected / readerReleased / disconnectArrived
/// ```
///
/// A command that failed because another lane took the reader waits until the gateway's
/// `disconnected` event is delivered (``disconnectWaiterArrived(_:)``): the loss is reported
/// before the command's error, as Stripe's SDKs promise.
struct TerminalSessionStateMachine: Sendable {
    /// What opened the session (what a resume repeats).
    struct Credentials: Sendable, Equatable, CustomStringConvertible {
        var connectionToken = ""
        var posDeviceID = ""
        var laneLabel = ""

        /// The device and lane; never the connection token.
        var description: String {
            var d = ProtobufDescription("Credentials")
            d.secret("connectionToken", connectionToken)
            d.string("posDeviceID", posDeviceID)
            d.string("laneLabel", laneLabel)
            return d.text
        }
    }

    /// The reader delegate, held weakly.
    struct WeakReaderDelegate: Sendable {
        weak var value: (any ReaderDelegate)?
    }

    /// The delegate, held weakly.
    struct WeakDelegate: Sendable {
        weak var value: (any TerminalDelegate)?
    }

    /// What ``closing()`` asks for.
    struct OnClose: Sendable {
        /// The session's token, to tell the gateway (nil: no session was open).
        var token: String?
        /// The background work to cancel.
        var tasks: [Task<Void, Never>]
    }

    /// What ``resumeContext`` returns: the session to resume and how it was opened.
    typealias ResumeContext = (session: TerminalSession, credentials: Credentials)

    private(set) var credentials = Credentials()
    private(set) var session: TerminalSession?
    private(set) var connectedReader: ReaderGatewayV1.Reader?
    /// A ConnectReader is running.
    private(set) var connecting = false
    /// The ownership generation the session's connect was granted (0: unknown).
    private(set) var connectedGeneration: UInt64 = 0
    /// What the gateway answered the latest connect or easy connect (kept until the next one).
    var latestConnection: ReaderConnectionDetails?
    /// Collects on the connected reader let the customer cancel (the connect's configuration).
    private(set) var allowsCustomerCancel = false
    private(set) var closed = false
    /// A reader the session was resumed without: its `disconnected` event is awaited from the
    /// gateway for ``TerminalClient/lostEventGrace``, then reported by the client.
    private(set) var lostReader = LostReaderReport()
    /// A `disconnected` event is being handed to the stream and the delegate.
    private(set) var deliveringDisconnect = false
    /// The latest takeover of the session's reader (who took it), for the error of the next
    /// command (``TerminalError/takenBy``); forgotten when the session connects a reader again.
    private(set) var latestTakeover: DisconnectInfo?
    private var disconnectWaiters: [CheckedContinuation<Void, Never>] = []
    /// The event pump and the heartbeats: they run while a session is open, and start again
    /// with the next session once the gateway ended this one.
    private var loops: [Task<Void, Never>] = []
    /// The tasks the loops and commands started (loss reports, reattaches, reconnects).
    private var background: [Task<Void, Never>] = []
    /// A session being opened with a token from the ``ConnectionTokenProvider``: every call
    /// that needs a session meanwhile waits for this one.
    private(set) var providedOpen: Task<TerminalSession, any Error>?
    private var delegateBox = WeakDelegate()
    /// The connected reader's delegate (the connect's configuration), held weakly.
    private var readerDelegateBox = WeakReaderDelegate()

    // MARK: reading

    /// The delegate, if it is still alive.
    var delegate: (any TerminalDelegate)? { delegateBox.value }
    var readerDelegate: (any ReaderDelegate)? { readerDelegateBox.value }

    /// The status Stripe's SDKs show.
    var connectionStatus: ConnectionStatus {
        if connecting { return .connecting }
        return connectedReader == nil ? .notConnected : .connected
    }

    /// The open session, unless the app closed it (what the background loops run for).
    var liveSession: TerminalSession? { closed ? nil : session }

    /// The session to resume after a dropped connection, and how it was opened.
    var resumeContext: ResumeContext? { session.map { ($0, credentials) } }

    /// Whether a command that failed for a lost reader should wait for the loss's event.
    var awaitsDisconnectEvent: Bool { connectedReader != nil || deliveringDisconnect }

    // MARK: the session

    /// The app set (or cleared) its delegate.
    mutating func readerDelegateSet(_ delegate: (any ReaderDelegate)?) {
        readerDelegateBox.value = delegate
    }

    mutating func delegateSet(_ delegate: (any TerminalDelegate)?) {
        delegateBox.value = delegate
    }

    /// The gateway opened (or resumed) `session` for `credentials`. True when the background
    /// work must start (none runs yet).
    mutating func opened(_ session: TerminalSession, credentials: Credentials) -> Bool {
        self.credentials = credentials
        self.session = session
        connectedReader = session.wireReader
        closed = false
        return loops.isEmpty
    }

    /// The event pump and the heartbeats started.
    mutating func backgroundStarted(_ tasks: [Task<Void, Never>]) {
        loops = tasks
    }

    /// Background work started for the session (a loss report, a reattach, a reconnect): it is
    /// cancelled with the session.
    mutating func backgroundTaskStarted(_ task: Task<Void, Never>) {
        background.append(task)
    }

    /// The client is going away: the background work to cancel.
    var backgroundTasks: [Task<Void, Never>] { loops + background }

    /// A session is needed and the provider's token opens it: the open already running, or
    /// `start` (made here, under the lock, so that two calls cannot both start one).
    mutating func providedOpenNeeded(start: () -> Task<TerminalSession, any Error>) -> Task<TerminalSession, any Error> {
        if let providedOpen { return providedOpen }
        let task = start()
        providedOpen = task
        return task
    }

    /// The provided open `task` ended (opened or failed): the next need starts a new one.
    mutating func providedOpenEnded(_ task: Task<TerminalSession, any Error>) {
        if providedOpen == task { providedOpen = nil }
    }

    /// The app closes the session: nothing runs for it any more.
    mutating func closing() -> OnClose {
        closed = true
        defer {
            background = []
            loops = []
            session = nil
            connectedReader = nil
        }
        return OnClose(token: session?.resumeToken, tasks: loops + background)
    }

    /// The gateway ended the session (or it could not be resumed within its lease). Returns
    /// the loops to stop: the next session starts its own.
    @discardableResult
    mutating func sessionEnded() -> [Task<Void, Never>] {
        session = nil
        connectedReader = nil
        defer { loops = [] }
        return loops
    }

    /// The session was resumed on a new connection. Returns the reader it came back without
    /// (and the generation that ended), whose loss must be awaited; nil when it kept its reader
    /// or had none.
    mutating func resumed(_ resumed: TerminalSession) -> LostReaderReport.Loss? {
        let before = connectedReader
        session = resumed
        if resumed.wireReader != nil { connectedReader = resumed.wireReader }
        guard resumed.wireReader == nil, let before else { return nil }
        return (before, connectedGeneration)
    }

    // MARK: the reader

    /// A ConnectReader started.
    mutating func connectStarted() {
        connecting = true
    }

    /// The ConnectReader ended (answered or failed).
    mutating func connectEnded() {
        connecting = false
    }

    /// The gateway connected `reader` to the session at ownership `generation`.
    mutating func readerConnected(_ reader: ReaderGatewayV1.Reader, generation: UInt64) {
        connectedReader = reader
        connectedGeneration = generation
        allowsCustomerCancel = false
        latestTakeover = nil
    }

    /// The connect's ``InternetConnectionConfiguration`` asked that the customer may cancel
    /// collects on the reader.
    mutating func customerCancelAllowed(_ allowed: Bool) {
        allowsCustomerCancel = allowed
    }

    /// The session let its reader go: the commands waiting for its loss to be reported go on.
    mutating func readerReleased() -> [CheckedContinuation<Void, Never>] {
        connectedReader = nil
        return takeDisconnectWaiters()
    }

    /// The gateway reported the reader's status.
    mutating func readerStatusChanged(_ reader: ReaderGatewayV1.Reader) {
        if connectedReader?.id == reader.id { connectedReader = reader }
    }

    /// The gateway reported an update available for `readerID`.
    mutating func updateAvailable(readerID: String, _ update: ReaderGatewayV1.ReaderSoftwareUpdate) {
        if connectedReader?.id == readerID { connectedReader?.availableUpdate = update }
    }

    // MARK: losses

    /// The gateway's `disconnected` for `info.readerID` arrived; `counts` is false when a Tap to
    /// Pay reconnect already overtook it (it changes nothing). Until ``disconnectDelivered()``,
    /// commands that failed for the loss wait.
    mutating func disconnectArrived(_ info: DisconnectInfo, counts: Bool) {
        if counts {
            if connectedReader == nil || connectedReader?.id == info.readerID || info.readerID.isEmpty {
                connectedReader = nil
            }
            lostReader.gatewayReported(readerID: info.readerID)
            if info.reason == .replaced { latestTakeover = info }
        }
        deliveringDisconnect = true
    }

    /// The `disconnected` event was handed to the stream and the delegate: the commands that
    /// waited for it may return their errors now.
    mutating func disconnectDelivered() -> [CheckedContinuation<Void, Never>] {
        deliveringDisconnect = false
        return takeDisconnectWaiters()
    }

    /// A command that failed for a lost reader waits for the loss's event. False when there is
    /// nothing to wait for: resume it at once.
    mutating func disconnectWaiterArrived(_ waiter: CheckedContinuation<Void, Never>) -> Bool {
        guard awaitsDisconnectEvent else { return false }
        disconnectWaiters.append(waiter)
        return true
    }

    /// Every command waiting for a loss's event, to resume (its wait ended or timed out).
    mutating func takeDisconnectWaiters() -> [CheckedContinuation<Void, Never>] {
        defer { disconnectWaiters = [] }
        return disconnectWaiters
    }

    /// The session came back without `reader`: its loss is awaited from the gateway.
    mutating func lossAwaited(_ reader: ReaderGatewayV1.Reader, generation: UInt64) {
        lostReader.resumedWithout(reader, generation: generation)
    }

    /// `task` reports the awaited loss after the grace (it is cancelled with the session).
    mutating func lossReportScheduled(_ task: Task<Void, Never>) {
        lostReader.reportsAfterGrace(task)
        background.append(task)
    }

    /// The grace for `readerID`'s loss has passed: the loss the client reports itself, or nil.
    mutating func lossGraceEnded(readerID: String) -> LostReaderReport.Loss? {
        lostReader.graceEnded(readerID: readerID, sessionClosed: closed)
    }
}
