import GatewayCore
import GatewayChannel
import GatewayWire
import Synchronization

/// The device's side of a mobile reader's `ReaderLink.Attach`, on the lane's own connection:
/// a Bluetooth reader's (``BluetoothReaderLink``) or a Tap to Pay phone's own
/// (``TapToPayReader``). Uplinks leave in the order they are made, through one outbox and one
/// sending task; a heartbeat goes out every interval; each command from the gateway goes to
/// the reader's handler. The link ends by saying why (``end(_:reconnecting:)``) or at once,
/// saying nothing (``stop(cancellingCall:)``).
final class MobileReaderLinkCarrier: Sendable {
    /// The link's tasks until it ends, as a value.
    private struct State {
        /// The command loop, the heartbeats and the sender, in that order (``end(_:reconnecting:)``
        /// relies on it).
        private var tasks: [Task<Void, Never>] = []
        private var ended = false

        /// The link is served by `tasks`.
        mutating func started(_ tasks: [Task<Void, Never>]) {
            self.tasks = tasks
        }

        /// The link ends: its tasks, once (nil when it ended already).
        mutating func ending() -> [Task<Void, Never>]? {
            guard !ended else { return nil }
            ended = true
            defer { tasks = [] }
            return tasks
        }
    }

    let link: ReaderLinkCall
    /// The reader's id at the gateway, for messages.
    let readerID: String
    /// What the link is, for messages ("the Bluetooth reader's link").
    let what: String
    let logComponent: String
    private let state = Mutex(State())
    private let outbox: AsyncStream<ReaderGatewayV1.ReaderUplink>.Continuation
    private let outgoing: AsyncStream<ReaderGatewayV1.ReaderUplink>

    init(link: ReaderLinkCall, readerID: String, what: String, logComponent: String) {
        self.link = link
        self.readerID = readerID
        self.what = what
        self.logComponent = logComponent
        (outgoing, outbox) = AsyncStream.makeStream()
    }

    /// Queues `message` after every uplink queued before it.
    func send(_ message: ReaderGatewayV1.ReaderUplink.Message) {
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = message
        outbox.yield(uplink)
    }

    /// Starts serving the link: `command` for each command from the gateway (called on the
    /// reading task: it must not wait), `heartbeat` every `heartbeatInterval`, and the sender.
    func start(
        _ downlinks: sending ResponseStream<ReaderGatewayV1.ReaderDownlink>.AsyncIterator,
        heartbeatInterval: Duration,
        heartbeat: @escaping @Sendable () -> Void,
        command: @escaping @Sendable (ReaderGatewayV1.ReaderCommand) -> Void
    ) {
        let commands = Task {
            var downlinks = downlinks
            while let downlink = try? await downlinks.next() {
                if case .command(let received)? = downlink.message { command(received) }
            }
        }
        let heartbeats = Task {
            while !Task.isCancelled {
                heartbeat()
                do { try await Task.sleep(for: heartbeatInterval) } catch { return }
            }
        }
        let sender = Task { [self] in
            for await uplink in outgoing {
                do {
                    try await link.send(uplink)
                } catch {
                    Logger(component: logComponent).warning("\(what) could not send to the gateway; the link is ending", ["reader": readerID, "error": "\(error)"])
                    break
                }
            }
            link.finish()
        }
        feed { $0.started([commands, heartbeats, sender]) }
    }

    /// Tells the gateway why the link ends (and whether the device reconnects), then ends it.
    /// Returns the task that sends the ending (it ends once the ending is on its way and the
    /// call half-closed): a reconnect awaits it before its new Attach, so the gateway reads
    /// this link's ending before the new link replaces it (a replaced call's later messages
    /// are dropped, and its end would be recorded without a reason). Nil once ended.
    @discardableResult
    func end(_ reason: ReaderGatewayV1.MobileDisconnectReason, reconnecting: Bool) -> Task<Void, Never>? {
        guard let tasks = takeTasks(), tasks.count == 3 else { return nil }
        var ending = ReaderGatewayV1.ReaderLinkEnding()
        ending.reason = reason
        ending.reconnecting = reconnecting
        send(.linkEnding(ending))
        outbox.finish()
        // The sender drains the outbox (the ending last), then half-closes the call; the
        // command loop ends with the call (cancelling it would cancel the call at once).
        tasks[1].cancel()
        return tasks[2]
    }

    /// Ends the link at once, saying nothing: its tasks stop, and the call is cancelled (a call
    /// that died with its connection) or half-closed.
    func stop(cancellingCall: Bool) {
        for task in takeTasks() ?? [] { task.cancel() }
        outbox.finish()
        if cancellingCall { link.cancel() } else { link.finish() }
    }

    /// The link's tasks, once: nil when it has ended already.
    private func takeTasks() -> [Task<Void, Never>]? {
        feed { $0.ending() }
    }

    /// Feeds one event to the state under its lock; the carrier acts after it is released.
    private func feed<Action: Sendable>(_ event: (inout State) -> Action) -> Action {
        state.withLock { event(&$0) }
    }
}
