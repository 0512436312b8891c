import GatewayCore
import GatewayRPC
import GatewayWire

/// Tap to Pay's disconnects and auto-reconnect (Stripe: "your reader disconnects when your
/// application enters the background or when your iPhone loses connectivity").
///
/// | what happens | auto-reconnect on | off |
/// |---|---|---|
/// | the app goes to the background | the link ends saying `appInBackground, reconnecting` (the gateway keeps the owner); `reconnectStarted` | the link ends saying so, not reconnecting: the gateway releases the reader, its `disconnected` comes |
/// | the connection to the gateway drops | `reconnectStarted` (reason `unknown`); the gateway keeps the owner through its offline bound | once the session is back, the client lets the reader go: `disconnected` |
/// | the app is in the foreground and the session is back | the link attaches again with the same credential: `reconnectSucceeded`, same owner, same generation | — |
/// | ``cancelReconnect()``, the window (`reconnectTimeout`) passes, the session ends, or the gateway released the reader meanwhile | `reconnectFailed`, then `disconnected`; the reader is released | — |
extension TerminalClient {
    /// The app went to the background: the Tap to Pay reader cannot run there, and its link
    /// ends. With `autoReconnectOnUnexpectedDisconnect` the client reports `reconnectStarted`
    /// (the delegate's `didStartReconnect` with reason `appInBackground`) and reconnects once
    /// the app is in the foreground again (``applicationWillEnterForeground()``) within the
    /// configuration's `reconnectTimeout`. Without it, the gateway releases the reader and its
    /// `disconnected` comes; connect again in the foreground.
    public func applicationDidEnterBackground() {
        let (reader, lost) = state.withLock { state -> (TapToPayReader?, TapToPayReconnectStateMachine.OnLinkLost) in
            state.tapToPay.inBackground = true
            let reader = state.tapToPay.reader
            state.tapToPay.reader = nil
            return (reader, reader == nil ? .none : state.tapToPay.reconnect.linkLost(.appInBackground))
        }
        guard let reader else { return }
        guard case .startReconnect(let readerID, let reason) = lost else {
            reader.end(.appInBackground, reconnecting: false)
            return
        }
        let ending = reader.end(reason, reconnecting: true)
        state.withLock { $0.tapToPay.linkEnding = ending }
        startTapToPayReconnect(readerID: readerID, reason: reason)
    }

    /// The app is in the foreground again: a reconnect waiting for it goes on.
    public func applicationWillEnterForeground() {
        state.withLock { $0.tapToPay.inBackground = false }
        wakeTapToPayReconnect()
    }

    /// Stops a running Tap to Pay reconnect (Stripe's `Cancelable.cancel()`):
    /// `reconnectFailed`, then `disconnected`, are reported and the reader is released.
    public func cancelReconnect() {
        state.withLock { state in
            if state.tapToPay.reconnect.reconnecting != nil { state.tapToPay.reconnectCancelled = true }
        }
        wakeTapToPayReconnect()
    }

    /// The connection to the gateway dropped: the Tap to Pay reader's link died with it.
    /// Called by the event pump before it resumes the session.
    func tapToPayConnectivityLost() {
        let (reader, lost) = state.withLock { state -> (TapToPayReader?, TapToPayReconnectStateMachine.OnLinkLost) in
            state.tapToPay.connectionDown = true
            let reader = state.tapToPay.reader
            state.tapToPay.reader = nil
            guard reader != nil else { return (nil, .none) }
            if case .connected(let readerID, let generation, false) = state.tapToPay.reconnect.state {
                state.tapToPay.lostWithoutReconnect = (readerID, generation)
            }
            return (reader, state.tapToPay.reconnect.linkLost(.unknown))
        }
        reader?.stop()
        if case .startReconnect(let readerID, let reason) = lost { startTapToPayReconnect(readerID: readerID, reason: reason) }
    }

    /// The session is back on a new connection (or is gone for good): a reconnect waiting for
    /// it looks again.
    func tapToPayConnectivityRestored() {
        state.withLock { $0.tapToPay.connectionDown = false }
        wakeTapToPayReconnect()
    }

    /// After the session resumed: a Tap to Pay reader lost with the connection while
    /// auto-reconnect was off is let go (the gateway kept its owner, as it does for a phone
    /// that reconnects), and `disconnected` reports it. A session resumed without the reader
    /// hears of the loss as any session does (the gateway's event, or the client's own).
    func releaseTapToPayLostWithoutReconnect() async {
        guard let (lost, owned) = state.withLock({ state -> ((readerID: String, generation: UInt64), Bool)? in
            defer { state.tapToPay.lostWithoutReconnect = nil }
            guard let lost = state.tapToPay.lostWithoutReconnect else { return nil }
            return (lost, state.connectedReader?.id == lost.readerID)
        }), owned else { return }
        do { try await disconnectReader() } catch {
            Logger(component: "tap-to-pay").warning("could not release the Tap to Pay reader lost with the connection; the gateway releases it after its offline bound", [
                "error": "\(error)",
            ])
        }
        emit(state.withLock { $0.tapToPay.reconnect.lostWithoutReconnect(readerID: lost.readerID, generation: lost.generation) })
    }

    func wakeTapToPayReconnect() {
        let waiters = state.withLock { state -> [CheckedContinuation<TapToPayReconnectStep, Never>] in
            defer { state.tapToPay.reconnectWaiters = [] }
            return state.tapToPay.reconnectWaiters
        }
        for waiter in waiters { waiter.resume(returning: .wait) }
    }

    private func startTapToPayReconnect(readerID: String, reason: ReaderGatewayV1.MobileDisconnectReason) {
        emit(.reconnectStarted(readerID: readerID))
        if let delegate = state.withLock({ $0.delegate.value }) { delegate.terminal(self, didStartReconnect: readerID, reason: reason) }
        let window = state.withLock { $0.tapToPay.connection?.configuration.reconnectTimeout } ?? .seconds(60)
        let task = Task { await self.reconnectTapToPay(window: window) }
        state.withLock { $0.background.append(task) }
    }

    static func reconnectStep(_ state: State, deadline: ContinuousClock.Instant) -> TapToPayReconnectStep {
        guard !state.closed, let reconnecting = state.tapToPay.reconnect.reconnecting else {
            return .fail(RPCError(code: .cancelled, reason: .commandCanceled, message: "the session let the reader go"))
        }
        if state.tapToPay.reconnectCancelled {
            return .fail(RPCError(code: .cancelled, reason: .commandCanceled, message: "the reconnect was cancelled"))
        }
        if reconnecting.released {
            return .fail(RPCError(.readerOffline, "the gateway released the Tap to Pay reader while it was away (its offline bound passed); connect it again"))
        }
        guard state.session != nil else {
            return .fail(RPCError(code: .failedPrecondition, reason: .sessionExpired, message: "the session ended while the Tap to Pay reader was away; open a session and connect again"))
        }
        if ContinuousClock.now >= deadline {
            return .fail(RPCError(.readerOffline, "the Tap to Pay reader did not reconnect within its reconnect timeout (the app stayed in the background or offline); connect it again"))
        }
        guard !state.tapToPay.inBackground, !state.tapToPay.connectionDown, let connect = state.tapToPay.connection else { return .wait }
        return .attach(connect, ending: state.tapToPay.linkEnding)
    }

    /// Waits until the app is in the foreground and the session is back, then attaches the
    /// reader's link again with its credential; gives up when cancelled, when the window
    /// passes, when the session ends or when the gateway released the reader meanwhile.
    private func reconnectTapToPay(window: Duration) async {
        let deadline = ContinuousClock.now + window
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            self?.wakeTapToPayReconnect()
        }
        defer { timer.cancel() }
        var failure: RPCError?
        var attached: TapToPayReader?
        var backoff = Duration.milliseconds(50)
        while failure == nil, attached == nil, !Task.isCancelled {
            let step = await withCheckedContinuation { (waiter: CheckedContinuation<TapToPayReconnectStep, Never>) in
                // Looked at and registered under the lock every change takes: no wake-up is lost.
                let now = state.withLock { state -> TapToPayReconnectStep? in
                    let step = Self.reconnectStep(state, deadline: deadline)
                    guard case .wait = step else { return step }
                    state.tapToPay.reconnectWaiters.append(waiter)
                    return nil
                }
                if let now { waiter.resume(returning: now) }
            }
            switch step {
            case .wait:
                continue
            case .fail(let error):
                failure = error
            case .attach(let connect, let ending):
                await ending?.value
                do {
                    attached = try await TapToPayReader.attach(
                        on: try await connection.channel(), serial: connect.serialNumber, credential: connect.credential, options: connect.options
                    )
                } catch let error as RPCError where error.code == .unavailable {
                    // The connection is not back yet: look again shortly.
                    try? await Task.sleep(for: backoff)
                    backoff = min(backoff * 2, .seconds(1))
                } catch {
                    failure = error as? RPCError ?? RPCError(.readerOffline, "\(error)")
                }
            }
        }
        await finishTapToPayReconnect(attached: attached, failure: failure)
    }

    private func finishTapToPayReconnect(attached: TapToPayReader?, failure: RPCError?) async {
        if let attached {
            let events = state.withLock { state -> [TerminalEvent] in
                guard let reconnecting = state.tapToPay.reconnect.reconnecting, !reconnecting.released, !state.tapToPay.reconnectCancelled else { return [] }
                state.tapToPay.reader = attached
                state.tapToPay.linkEnding = nil
                return state.tapToPay.reconnect.reconnectSucceeded(generation: state.connectedGeneration, autoReconnect: true)
            }
            if !events.isEmpty {
                for event in events { emit(event) }
                return
            }
            // Let go meanwhile (cancelled, released): the new link ends again.
            attached.end(.disconnectRequested, reconnecting: false)
        }
        let error = failure ?? RPCError(code: .cancelled, reason: .commandCanceled, message: "the reconnect was cancelled")
        let (events, release) = state.withLock { state -> ([TerminalEvent], Bool) in
            let release = state.session != nil && !state.closed && state.tapToPay.reconnect.reconnecting.map { !$0.released } == true
            state.tapToPay.reconnectCancelled = false
            state.tapToPay.linkEnding = nil
            return (state.tapToPay.reconnect.reconnectFailed(error), release)
        }
        // The gateway kept the owner for the reconnect: let the reader go before saying so.
        if release {
            do { try await disconnectReader() } catch {
                Logger(component: "tap-to-pay").warning("could not release the Tap to Pay reader after its reconnect failed; the gateway releases it after its offline bound", [
                    "error": "\(error)",
                ])
            }
        }
        for event in events { emit(event) }
    }
}

/// Where a waiting Tap to Pay reconnect stands.
enum TapToPayReconnectStep: Sendable {
    /// Attach the link now (once the old link's ending is on its way).
    case attach(TapToPayConnectionRequest, ending: Task<Void, Never>?)
    /// Wait for the next change (foreground, session back, cancel, the window).
    case wait
    /// Give up, for this reason.
    case fail(RPCError)
}
