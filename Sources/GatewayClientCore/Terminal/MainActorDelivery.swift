import GatewayWire

/// What a ``TerminalClient`` hands its delegates, in order, on the main actor: the client's
/// tasks yield these as things happen; one main-actor task performs them.
enum MainActorDelivery: Sendable {
    /// An event for the ``TerminalDelegate`` (and, for the reader's losses and reconnects, the
    /// ``ReaderDelegate``).
    case event(TerminalEvent)
    /// The Tap to Pay reader's reconnect started, and why.
    case tapToPayReconnectStarted(readerID: String, reason: ReaderGatewayV1.MobileDisconnectReason)
    /// The delegates heard the `disconnected` event delivered before this: the commands that
    /// failed for that loss may return their errors now.
    case disconnectHandedOver
    /// The delegates heard everything before this: signal the caller waiting for that.
    case caughtUp(AsyncStream<Void>.Continuation)
}

extension TerminalClient {
    @MainActor
    func deliverOnMainActor(_ delivery: MainActorDelivery) {
        switch delivery {
        case .event(let event):
            deliverToReaderDelegate(event)
            deliverToTerminalDelegate(event)
        case .tapToPayReconnectStarted(let readerID, let reason):
            feedSession({ $0.delegate })?.terminal(self, didStartReconnect: readerID, reason: DisconnectReason(mobile: reason))
        case .disconnectHandedOver:
            for waiter in feedSession({ $0.disconnectDelivered() }) { waiter.resume() }
        case .caughtUp(let signal):
            signal.yield()
            signal.finish()
        }
    }

    /// Waits until the delegates heard everything emitted so far, or `limit` passed (an app
    /// whose main actor is busy or never serviced is not held up longer).
    func delegatesCaughtUp(limit: Duration) async {
        let (caughtUp, signal) = AsyncStream.makeStream(of: Void.self)
        mainActorSink.yield(.caughtUp(signal))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await _ in caughtUp { return } }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Hands one event to the terminal delegate: its own callback, then `didReceive`.
    @MainActor
    func deliverToTerminalDelegate(_ event: TerminalEvent) {
        guard let delegate = feedSession({ $0.delegate }) else { return }
        switch event {
        case .disconnected(let info): delegate.terminal(self, didDisconnect: info)
        case .readerStatusChanged(let reader): delegate.terminal(self, didChangeReaderStatus: reader)
        case .updateAvailable(_, let update): delegate.terminal(self, didReportAvailableUpdate: update)
        case .updateStarted(_, let update): delegate.terminal(self, didStartInstallingUpdate: update)
        case .updateProgress(_, let progress): delegate.terminal(self, didReportReaderSoftwareUpdateProgress: progress)
        default: break
        }
        delegate.terminal(self, didReceive: event)
    }
}
