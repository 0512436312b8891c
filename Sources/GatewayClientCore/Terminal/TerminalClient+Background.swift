import GatewayCore
import GatewayChannel
import GatewayWire

extension TerminalClient {
    /// Starts the event pump (which also resumes the session after a dropped connection)
    /// and the heartbeat loop.
    func startBackgroundTasks() {
        let events = Task { [weak self] () async -> Void in await self?.runEventPump() }
        let heartbeats = Task { [weak self] () async -> Void in await self?.runHeartbeats() }
        feedSession { $0.backgroundStarted([events, heartbeats]) }
    }

    /// Subscribes to the session's events and delivers them; on a lost connection resumes
    /// the session within its lease and subscribes again.
    func runEventPump() async {
        let logger = Logger(component: "terminal")
        for _ in 0..<1_000_000 {
            guard !Task.isCancelled, let token = feedSession({ $0.liveSession?.resumeToken }) else { return }
            var request = ReaderGatewayV1.SubscribeEventsRequest()
            request.sessionToken = token
            let failure: RPCError
            do {
                let channel = try await connection.channel()
                for try await event in channel.serverStreaming(ReaderGatewayV1.Sdk.subscribeEvents, request) {
                    deliver(event)
                }
                failure = RPCError(code: .failedPrecondition, reason: .sessionExpired, message: "the gateway ended the session's event stream")
            } catch let error as RPCError {
                failure = error
            } catch {
                failure = .unavailable(.connectionLost, "\(error)")
            }
            guard !Task.isCancelled, !feedSession({ $0.closed }) else { return }
            if failure.code != .unavailable {
                logger.info("session ended", ["error": failure])
                sessionEnded()
                emit(.sessionEnded(TerminalError(failure)))
                wakeTapToPayReconnect()
                return
            }
            emit(.connectionLost(TerminalError(failure)))
            tapToPayConnectivityLost()
            let resumed = await resumeAfterConnectionLoss(logger: logger)
            tapToPayConnectivityRestored()
            guard resumed else {
                _ = feedTapToPay { $0.takeLostWithoutReconnect() }
                return
            }
            await releaseTapToPayLostWithoutReconnect()
            reattachBluetoothLinks()
        }
    }

    /// Re-opens the session with its resume token until it works or the lease ran out.
    func resumeAfterConnectionLoss(logger: Logger) async -> Bool {
        guard let (session, credentials) = feedSession({ $0.resumeContext }) else { return false }
        let deadline = ContinuousClock.now + max(session.lease, .seconds(1))
        var backoff = Duration.milliseconds(100)
        for _ in 0..<10_000 {
            guard !Task.isCancelled, ContinuousClock.now < deadline else { break }
            do {
                let resumed = try await openSessionCall(
                    connectionToken: credentials.connectionToken, posDeviceID: credentials.posDeviceID, laneLabel: credentials.laneLabel,
                    resumeToken: session.resumeToken
                )
                let lost = feedSession { $0.resumed(resumed) }
                emit(.sessionResumed(resumed))
                if let lost { awaitLossEvent(lost.reader, generation: lost.generation) }
                return true
            } catch let error as RPCError where error.code != .unavailable {
                logger.info("session could not be resumed", ["error": error])
                sessionEnded()
                emit(.sessionEnded(TerminalError(error)))
                return false
            } catch {
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(2))
            }
        }
        let error = RPCError(code: .failedPrecondition, reason: .sessionExpired, message: "the gateway could not be reached within the session's lease; open a new session")
        sessionEnded()
        emit(.sessionEnded(TerminalError(error)))
        return false
    }

    /// How long a session resumed without its reader waits for the gateway's own
    /// `disconnected` event (kept for the session while it was away, sent when the event
    /// stream is subscribed again) before the client reports the loss itself.
    public static let lostEventGrace = Duration.seconds(1)

    /// The session came back without `reader`: the gateway released it while the lane was
    /// away. When the replica that held the session kept its event, the re-subscribed
    /// stream delivers it (with the real reason, say a takeover and by whom); when that
    /// replica died or was fenced, the event died with it, and after ``lostEventGrace`` the
    /// client says so itself, as the gateway would have, naming the generation that ended.
    /// Either way the lane hears of the loss once.
    func awaitLossEvent(_ reader: ReaderGatewayV1.Reader, generation: UInt64) {
        feedSession { $0.lossAwaited(reader, generation: generation) }
        let grace = lostEventGraceWait
        let report = Task { [weak self] () async -> Void in
            await grace.wait()
            guard let self, let lost = self.feedSession({ $0.lossGraceEnded(readerID: reader.id) }) else { return }
            var disconnected = ReaderGatewayV1.ReaderDisconnected()
            disconnected.readerID = lost.reader.id
            disconnected.generation = lost.generation
            disconnected.reason = .readerLost
            disconnected.message = "the session was resumed without its reader: the reader was released while the lane was away"
            var event = ReaderGatewayV1.SessionEvent()
            event.event = .disconnected(disconnected)
            self.deliver(event)
        }
        feedSession { $0.lossReportScheduled(report) }
    }

    /// The gateway ended the session (or it could not be resumed): both machines learn it
    /// before the event is reported and a waiting Tap to Pay reconnect looks again.
    func sessionEnded() {
        let loops = feedSession { $0.sessionEnded() }
        feedTapToPay { $0.sessionEnded() }
        // The heartbeats stop (the event pump is returning): the next session starts both again.
        for loop in loops { loop.cancel() }
    }

    /// Heartbeats every third of the lease (at most every 5 s) while the session is open.
    func runHeartbeats() async {
        for _ in 0..<100_000_000 {
            guard let session = feedSession({ $0.liveSession }) else {
                try? await Task.sleep(for: .milliseconds(200))
                if Task.isCancelled || feedSession({ $0.closed }) { return }
                continue
            }
            let interval = max(.milliseconds(200), min(session.lease / 3, .seconds(5)))
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            var request = ReaderGatewayV1.HeartbeatRequest()
            request.sessionToken = session.resumeToken
            // A lost connection is the event pump's to repair; a heartbeat only keeps the lease.
            do {
                _ = try await connection.unary(ReaderGatewayV1.Sdk.heartbeat, request, timeout: callTimeout, attempts: 1)
            } catch {
                Logger(component: "terminal").debug("session heartbeat failed", ["error": "\(error)"])
            }
        }
    }

    /// Applies one gateway event to the state, then hands it to the stream and the delegate.
    func deliver(_ event: ReaderGatewayV1.SessionEvent) {
        switch event.event {
        case .disconnected(let message)?:
            let info = DisconnectInfo(message)
            // A Tap to Pay reader reconnecting: reported only if the reconnect fails; a loss the
            // reconnect already overtook changes nothing.
            let verdict = feedTapToPay { $0.gatewayDisconnected(info) }
            feedSession { $0.disconnectArrived(info, counts: verdict != .drop) }
            if verdict == .deliver { emit(.disconnected(info)) }
            // A reconnect that waits learns that the gateway released the reader meanwhile.
            if verdict == .hold { wakeTapToPayReconnect() }
            // Only once the delegates heard it (on the main actor) may a command that failed
            // because of this loss return its error.
            mainActorSink.yield(.disconnectHandedOver)
        case .readerStatusChanged(let message)?:
            if let reader = message.reader {
                feedSession { $0.readerStatusChanged(reader) }
                emit(.readerStatusChanged(Reader(reader)))
            }
        case .reconnectStarted(let message)?:
            emit(.reconnectStarted(readerID: message.readerID))
        case .reconnectSucceeded(let message)?:
            emit(.reconnectSucceeded(readerID: message.readerID))
        case .reconnectFailed(let message)?:
            emit(.reconnectFailed(readerID: message.readerID, TerminalError(RPCError(status: message.status ?? ReaderGatewayV1.Status(.readerOffline, "the reader did not come back")))))
        case .updateProgress(let message)?:
            emit(.updateProgress(readerID: message.readerID, progress: message.progress))
        case .updateAvailable(let message)?:
            if let update = message.update {
                feedSession { $0.updateAvailable(readerID: message.readerID, update) }
                emit(.updateAvailable(readerID: message.readerID, ReaderSoftwareUpdate(update)))
            }
        case .updateStarted(let message)?:
            if let update = message.update { emit(.updateStarted(readerID: message.readerID, ReaderSoftwareUpdate(update))) }
        case nil:
            break
        }
    }

    /// Hands `event` to the stream now, and to the delegates on the main actor, in order.
    func emit(_ event: TerminalEvent) {
        eventSink.yield(event)
        mainActorSink.yield(.event(event))
    }
}
