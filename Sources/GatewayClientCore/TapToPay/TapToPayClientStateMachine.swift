import GatewayChannel
import GatewayWire

/// What a ``TerminalClient`` holds of the phone's own Tap to Pay reader, as a value: the
/// reader, how it was connected, its reconnect (``TapToPayReconnectStateMachine``) and the
/// conditions a waiting reconnect looks at (the app in the background, the connection down,
/// the session there, a cancel). Events in, what the client must do out; the client stops
/// links, attaches them and reports events after the lock is released.
///
/// A reconnect that waits registers its continuation in the same step that found it must wait
/// (``reconnectStep(now:deadline:waiter:)``), and every change it waits for is followed by
/// ``takeWaiters()``: no wake-up is lost.
///
/// Generic over the reader's link (``TapToPayReader`` in the client), which it only holds and
/// compares: the machine is tested without one.
struct TapToPayClientStateMachine<Reader: AnyObject & Sendable>: Sendable {
    /// Whether the client's session is there, as a waiting reconnect needs to know.
    enum Session: Sendable, Equatable {
        /// Open (or being resumed on a new connection).
        case open
        /// Ended by the gateway, or never opened.
        case gone
        /// Closed by the app.
        case closed
    }

    /// Why a reconnect gives up (the client makes the error from it).
    enum ReconnectFailure: Sendable, Equatable {
        /// The session let the reader go (disconnect, close) meanwhile.
        case letGo
        /// The app cancelled the reconnect.
        case cancelled
        /// The gateway released the reader while it was away (its offline bound passed).
        case releasedByGateway
        /// The session ended while the reader was away.
        case sessionEnded
        /// The window (`reconnectTimeout`) passed.
        case windowPassed

        /// The error reported with `reconnectFailed`.
        var error: RPCError {
            switch self {
            case .letGo: RPCError(code: .cancelled, reason: .commandCanceled, message: "the session let the reader go")
            case .cancelled: RPCError(code: .cancelled, reason: .commandCanceled, message: "the reconnect was cancelled")
            case .releasedByGateway:
                RPCError(.readerOffline, "the gateway released the Tap to Pay reader while it was away (its offline bound passed); connect it again")
            case .sessionEnded:
                RPCError(code: .failedPrecondition, reason: .sessionExpired, message: "the session ended while the Tap to Pay reader was away; open a session and connect again")
            case .windowPassed:
                RPCError(.readerOffline, "the Tap to Pay reader did not reconnect within its reconnect timeout (the app stayed in the background or offline); connect it again")
            }
        }
    }

    /// Where a waiting reconnect stands.
    enum ReconnectStep: Sendable {
        /// Attach the link now (once the old link's ending is on its way).
        case attach(TapToPayConnectionRequest, ending: Task<Void, Never>?)
        /// Wait for the next change (foreground, session back, cancel, the window).
        case wait
        /// Give up, for this reason.
        case fail(ReconnectFailure)
    }

    /// What a lost link asks for: the link to stop (if there was one) and what the reconnect
    /// machine decided.
    struct OnLinkLost: Sendable {
        var reader: Reader?
        var lost: TapToPayReconnectStateMachine.OnLinkLost
    }

    /// What the end of a failed reconnect asks for.
    struct OnReconnectFailed: Sendable {
        /// Report these (`reconnectFailed`, then `disconnected`).
        var events: [TerminalEvent]
        /// The gateway kept the owner for the reconnect: let the reader go before reporting.
        var releaseReader: Bool
    }

    /// The phone's own reader, once a connect attached it.
    private(set) var reader: Reader?
    /// How the Tap to Pay reader was connected (what a reconnect repeats).
    private(set) var connection: TapToPayConnectionRequest?
    private(set) var reconnect = TapToPayReconnectStateMachine()
    private(set) var session = Session.gone
    /// The app is in the background: the Tap to Pay reader cannot run.
    private(set) var inBackground = false
    /// The connection to the gateway dropped and the session is not resumed yet.
    private(set) var connectionDown = false
    /// The Tap to Pay reader lost with the connection while auto-reconnect was off: let go
    /// once the session is back.
    private(set) var lostWithoutReconnect: (readerID: String, generation: UInt64)?
    /// The app cancelled the running Tap to Pay reconnect.
    private(set) var reconnectCancelled = false
    /// The task sending the ending of the reader's last link (a reconnect on the same
    /// connection awaits it).
    private var linkEnding: Task<Void, Never>?
    /// Reconnects waiting for a change.
    private var waiters: [CheckedContinuation<ReconnectStep, Never>] = []

    /// How long a reconnect may take (the connection configuration's `reconnectTimeout`).
    var reconnectWindow: Duration { connection?.configuration.reconnectTimeout ?? .seconds(60) }

    // MARK: the session

    /// The session opened (or was resumed).
    mutating func sessionOpened() {
        session = .open
    }

    /// The gateway ended the session.
    mutating func sessionEnded() {
        session = .gone
    }

    /// The app closes the session: the reader's link to stop.
    mutating func closing() -> Reader? {
        session = .closed
        return released()
    }

    /// The session let the reader go (disconnect, close): the reader's link to stop.
    mutating func released() -> Reader? {
        defer { reader = nil }
        reconnect.released()
        return reader
    }

    // MARK: connecting

    /// A connect attached `attached`'s link: the reader it replaces, to stop.
    mutating func readerAttached(_ attached: Reader) -> Reader? {
        defer { reader = attached }
        return reader
    }

    /// The session connected the reader at `generation`, as `request` asked.
    mutating func connected(_ request: TapToPayConnectionRequest, readerID: String, generation: UInt64) {
        connection = request
        reconnectCancelled = false
        reconnect.connected(readerID: readerID, generation: generation, autoReconnect: request.configuration.autoReconnectOnUnexpectedDisconnect)
    }

    /// The connect that attached `attached` failed after the attach.
    mutating func connectFailed(_ attached: Reader) {
        if reader === attached { reader = nil }
    }

    // MARK: losing the link

    /// The app went to the background: the link ends (saying so).
    mutating func enteredBackground() -> OnLinkLost {
        inBackground = true
        defer { reader = nil }
        return OnLinkLost(reader: reader, lost: reader == nil ? .none : reconnect.linkLost(.appInBackground))
    }

    /// The ending of the link lost in the background is on its way in `task`.
    mutating func linkEnding(_ task: Task<Void, Never>?) {
        linkEnding = task
    }

    /// The app is in the foreground again.
    mutating func enteredForeground() {
        inBackground = false
    }

    /// The connection to the gateway dropped: the link died with it.
    mutating func connectivityLost() -> OnLinkLost {
        connectionDown = true
        guard let lostReader = reader else { return OnLinkLost(reader: nil, lost: .none) }
        reader = nil
        if case .connected(let readerID, let generation, false) = reconnect.state {
            lostWithoutReconnect = (readerID, generation)
        }
        return OnLinkLost(reader: lostReader, lost: reconnect.linkLost(.unknown))
    }

    /// The session is back on a new connection (or gone for good).
    mutating func connectivityRestored() {
        connectionDown = false
    }

    /// The reader lost with the connection while auto-reconnect was off, to let go now that the
    /// session is back (once).
    mutating func takeLostWithoutReconnect() -> (readerID: String, generation: UInt64)? {
        defer { lostWithoutReconnect = nil }
        return lostWithoutReconnect
    }

    /// The reader lost with the connection was let go: the `disconnected` to report.
    mutating func lostWithoutReconnectReleased(readerID: String, generation: UInt64) -> TerminalEvent {
        reconnect.lostWithoutReconnect(readerID: readerID, generation: generation)
    }

    /// The gateway's `disconnected` arrived.
    mutating func gatewayDisconnected(_ info: DisconnectInfo) -> TapToPayReconnectStateMachine.OnGatewayDisconnected {
        reconnect.gatewayDisconnected(info)
    }

    // MARK: reconnecting

    /// The app asked to stop the running reconnect.
    mutating func cancelRequested() {
        if reconnect.reconnecting != nil { reconnectCancelled = true }
    }

    /// Where a reconnect stands at `now`; when it must wait, `waiter` is kept until the next
    /// change (``takeWaiters()``) and nil is returned.
    mutating func reconnectStep(now: ContinuousClock.Instant, deadline: ContinuousClock.Instant, waiter: CheckedContinuation<ReconnectStep, Never>) -> ReconnectStep? {
        let step = step(now: now, deadline: deadline)
        guard case .wait = step else { return step }
        waiters.append(waiter)
        return nil
    }

    /// Where a reconnect stands at `now`.
    func step(now: ContinuousClock.Instant, deadline: ContinuousClock.Instant) -> ReconnectStep {
        guard session != .closed, let reconnecting = reconnect.reconnecting else { return .fail(.letGo) }
        if reconnectCancelled { return .fail(.cancelled) }
        if reconnecting.released { return .fail(.releasedByGateway) }
        guard session == .open else { return .fail(.sessionEnded) }
        if now >= deadline { return .fail(.windowPassed) }
        guard !inBackground, !connectionDown, let connection else { return .wait }
        return .attach(connection, ending: linkEnding)
    }

    /// Something a waiting reconnect looks at changed: the waiters to wake.
    mutating func takeWaiters() -> [CheckedContinuation<ReconnectStep, Never>] {
        defer { waiters = [] }
        return waiters
    }

    /// The reconnect attached `attached`'s link, and the session holds the reader at
    /// `generation`: `reconnectSucceeded` to report, or nothing when the reader was let go
    /// meanwhile (cancelled, released): then `attached` must end again.
    mutating func reconnectAttached(_ attached: Reader, generation: UInt64) -> [TerminalEvent] {
        guard let reconnecting = reconnect.reconnecting, !reconnecting.released, !reconnectCancelled else { return [] }
        reader = attached
        linkEnding = nil
        return reconnect.reconnectSucceeded(generation: generation, autoReconnect: true)
    }

    /// The reconnect failed with `error`.
    mutating func reconnectFailed(_ error: RPCError) -> OnReconnectFailed {
        let release = session == .open && reconnect.reconnecting.map { !$0.released } == true
        reconnectCancelled = false
        linkEnding = nil
        return OnReconnectFailed(events: reconnect.reconnectFailed(error), releaseReader: release)
    }
}
