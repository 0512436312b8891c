import GatewayCore
import GatewayChannel
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
        let lost = feedTapToPay { $0.enteredBackground() }
        guard let reader = lost.reader else { return }
        guard case .startReconnect(let readerID, let reason) = lost.lost else {
            reader.end(.appInBackground, reconnecting: false)
            return
        }
        let ending = reader.end(reason, reconnecting: true)
        feedTapToPay { $0.linkEnding(ending) }
        startTapToPayReconnect(readerID: readerID, reason: reason)
    }

    /// The app is in the foreground again: a reconnect waiting for it goes on.
    public func applicationWillEnterForeground() {
        feedTapToPay { $0.enteredForeground() }
        wakeTapToPayReconnect()
    }

    /// Stops a running Tap to Pay reconnect (Stripe's `Cancelable.cancel()`):
    /// `reconnectFailed`, then `disconnected`, are reported and the reader is released.
    public func cancelReconnect() {
        feedTapToPay { $0.cancelRequested() }
        wakeTapToPayReconnect()
    }

    /// The connection to the gateway dropped: the Tap to Pay reader's link died with it.
    /// Called by the event pump before it resumes the session.
    func tapToPayConnectivityLost() {
        let lost = feedTapToPay { $0.connectivityLost() }
        lost.reader?.stop()
        if case .startReconnect(let readerID, let reason) = lost.lost { startTapToPayReconnect(readerID: readerID, reason: reason) }
    }

    /// The session is back on a new connection (or is gone for good): a reconnect waiting for
    /// it looks again.
    func tapToPayConnectivityRestored() {
        feedTapToPay { $0.connectivityRestored() }
        wakeTapToPayReconnect()
    }

    /// After the session resumed: a Tap to Pay reader lost with the connection while
    /// auto-reconnect was off is let go (the gateway kept its owner, as it does for a phone
    /// that reconnects), and `disconnected` reports it. A session resumed without the reader
    /// hears of the loss as any session does (the gateway's event, or the client's own).
    func releaseTapToPayLostWithoutReconnect() async {
        guard let lost = feedTapToPay({ $0.takeLostWithoutReconnect() }), feedSession({ $0.connectedReader?.id }) == lost.readerID else { return }
        do { try await disconnectReader() } catch {
            Logger(component: "tap-to-pay").warning("could not release the Tap to Pay reader lost with the connection; the gateway releases it after its offline bound", [
                "error": "\(error)",
            ])
        }
        emit(feedTapToPay { $0.lostWithoutReconnectReleased(readerID: lost.readerID, generation: lost.generation) })
    }

    func wakeTapToPayReconnect() {
        for waiter in feedTapToPay({ $0.takeWaiters() }) { waiter.resume(returning: .wait) }
    }

    private func startTapToPayReconnect(readerID: String, reason: ReaderGatewayV1.MobileDisconnectReason) {
        emit(.reconnectStarted(readerID: readerID))
        mainActorSink.yield(.tapToPayReconnectStarted(readerID: readerID, reason: reason))
        let window = feedTapToPay { $0.reconnectWindow }
        let task = Task { await self.reconnectTapToPay(window: window) }
        feedSession { $0.backgroundTaskStarted(task) }
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
            let step = await withCheckedContinuation { (waiter: CheckedContinuation<TapToPayState.ReconnectStep, Never>) in
                // Looked at and registered under the lock every change takes: no wake-up is lost.
                if let now = feedTapToPay({ $0.reconnectStep(now: .now, deadline: deadline, waiter: waiter) }) { waiter.resume(returning: now) }
            }
            switch step {
            case .wait:
                continue
            case .fail(let reason):
                failure = reason.error
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
            let generation = feedSession { $0.connectedGeneration }
            let events = feedTapToPay { $0.reconnectAttached(attached, generation: generation) }
            if !events.isEmpty {
                for event in events { emit(event) }
                return
            }
            // Let go meanwhile (cancelled, released): the new link ends again.
            attached.end(.disconnectRequested, reconnecting: false)
        }
        let error = failure ?? RPCError(code: .cancelled, reason: .commandCanceled, message: "the reconnect was cancelled")
        let failed = feedTapToPay { $0.reconnectFailed(error) }
        // The gateway kept the owner for the reconnect: let the reader go before saying so.
        if failed.releaseReader {
            do { try await disconnectReader() } catch {
                Logger(component: "tap-to-pay").warning("could not release the Tap to Pay reader after its reconnect failed; the gateway releases it after its offline bound", [
                    "error": "\(error)",
                ])
            }
        }
        for event in failed.events { emit(event) }
    }
}
