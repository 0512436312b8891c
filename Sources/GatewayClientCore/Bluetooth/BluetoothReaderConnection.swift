import GatewayCore
import GatewayChannel
import GatewayWire
import Synchronization

/// A connected Bluetooth reader (what ``TerminalClient/connectBluetoothReader(_:radio:_:)``
/// returns): its events (Stripe's `MobileReaderDelegate`), the reconnect's `Cancelable`, and
/// disconnect. Payments go through the ``TerminalClient`` as with any reader.
public final class BluetoothReaderConnection: Sendable {
    /// The connection's state, as a value: the reconnect machine (``MobileReconnectStateMachine``)
    /// and the Bluetooth connection and link it serves. Events in, what to end, start or report
    /// out; the connection acts after its lock is released.
    struct State: Sendable {
        /// What the serving link and Bluetooth connection are.
        typealias Serving = (link: BluetoothReaderLink, peripheral: any BluetoothPeripheral, served: UInt64)

        private(set) var reconnect = MobileReconnectStateMachine()
        private var link: BluetoothReaderLink?
        private var peripheral: (any BluetoothPeripheral)?
        private var reconnectTask: Task<Void, Never>?
        /// Counts the Bluetooth connections served; a loss reported for an older one is ignored.
        private(set) var served: UInt64 = 0
        /// Why the required update failed during the connect that still succeeded.
        private(set) var requiredUpdateFailure: ReaderGatewayV1.Status?

        /// `link` over `peripheral` is served now (the first connect of reader `serialNumber`,
        /// or a reconnect): its number, to tell its loss from an older one's.
        mutating func serving(_ link: BluetoothReaderLink, over peripheral: any BluetoothPeripheral, firstTime: Bool, serialNumber: String, autoReconnect: Bool) -> UInt64 {
            self.link = link
            self.peripheral = peripheral
            served += 1
            if firstTime { reconnect.connected(serialNumber: serialNumber, autoReconnect: autoReconnect) }
            return served
        }

        /// The connect succeeded although the required update failed (`failure`).
        mutating func connectedDespiteRequiredUpdate(_ failure: ReaderGatewayV1.Status?) {
            requiredUpdateFailure = failure
        }

        /// The app asked to stop the reconnect: the attempt to cancel, if one runs.
        mutating func cancelRequested() -> Task<Void, Never>? {
            guard reconnect.cancelRequested() else { return nil }
            return reconnectTask
        }

        /// The app disconnects the reader: what to end.
        mutating func disconnecting() -> (link: BluetoothReaderLink?, peripheral: (any BluetoothPeripheral)?, reconnect: Task<Void, Never>?) {
            reconnect.released()
            defer { (link, peripheral, reconnectTask) = (nil, nil, nil) }
            return (link, peripheral, reconnectTask)
        }

        /// The link to attach again after the session resumed: nil while a Bluetooth reconnect
        /// runs (it attaches a link of its own) or once the reader was let go.
        var reattachable: Serving? {
            guard case .connected = reconnect.state, let link, let peripheral else { return nil }
            return (link, peripheral, served)
        }

        /// `fresh` attached in place of `old` for Bluetooth connection `servedThen`: false when
        /// the state changed meanwhile (then `fresh` ends without a word).
        mutating func reattached(_ fresh: BluetoothReaderLink, replacing old: BluetoothReaderLink, servedThen: UInt64) -> Bool {
            guard served == servedThen, link === old else { return false }
            link = fresh
            return true
        }

        /// The Bluetooth connection `servedThen` ended for `reason`: what the reconnect machine
        /// decided and the link to end (nothing for a connection no longer served).
        mutating func linkLost(_ reason: ReaderGatewayV1.MobileDisconnectReason, servedThen: UInt64) -> (MobileReconnectStateMachine.OnLinkLost, BluetoothReaderLink?) {
            guard served == servedThen, peripheral != nil else { return (.none, nil) }
            defer { (link, peripheral) = (nil, nil) }
            return (reconnect.linkLost(reason), link)
        }

        /// The reconnect runs in `task`.
        mutating func reconnectStarted(_ task: Task<Void, Never>) {
            reconnectTask = task
        }

        /// The reconnect attempt connected the reader again.
        mutating func reconnectSucceeded() -> MobileReconnectStateMachine.OnReconnectEnded {
            reconnect.reconnectSucceeded()
        }

        /// The reconnect attempt gave up.
        mutating func reconnectFailed() -> MobileReconnectStateMachine.OnReconnectEnded {
            reconnect.reconnectFailed()
        }
    }

    /// The reader as the gateway registered it (id, serial, location).
    public let reader: Reader
    /// The reader's events, in order (single consumer).
    public let events: AsyncStream<MobileReaderEvent>
    let eventSink: AsyncStream<MobileReaderEvent>.Continuation
    let client: TerminalClient
    let radio: any BluetoothRadio
    let credential: String
    let configuration: BluetoothConnectionConfiguration
    private let state = Mutex(State())

    init(
        reader: ReaderGatewayV1.Reader, client: TerminalClient, radio: any BluetoothRadio, credential: String,
        configuration: BluetoothConnectionConfiguration
    ) {
        self.reader = Reader(reader)
        self.client = client
        self.radio = radio
        self.credential = credential
        self.configuration = configuration
        (events, eventSink) = AsyncStream.makeStream()
    }

    public var serialNumber: String { reader.serialNumber }

    /// Set when a required software update failed during the connect and the reader connected
    /// anyway, because it ran its location's latest version within the last 30 days (Stripe's
    /// `didFinishInstallingUpdate` with an error); the next connect retries the update.
    public var requiredUpdateFailure: TerminalError? { feed { $0.requiredUpdateFailure }.map { TerminalError(RPCError(status: $0)) } }

    /// Feeds one event to the state under its lock and returns what it asks for; the connection
    /// acts on it after the lock is released.
    private func feed<Action: Sendable>(_ event: (inout State) -> Action) -> Action {
        state.withLock { event(&$0) }
    }

    /// The connect succeeded although the required update failed (`failure`).
    func connectedDespiteRequiredUpdate(_ failure: ReaderGatewayV1.Status?) {
        feed { $0.connectedDespiteRequiredUpdate(failure) }
    }

    /// Starts serving `link` over `peripheral` (first connect, or a reconnect).
    func serve(_ link: BluetoothReaderLink, over peripheral: any BluetoothPeripheral, firstTime: Bool) {
        let (serial, autoReconnect) = (reader.serialNumber, configuration.autoReconnectOnUnexpectedDisconnect)
        let served = feed { $0.serving(link, over: peripheral, firstTime: firstTime, serialNumber: serial, autoReconnect: autoReconnect) }
        Task { [self] in
            let reason = await peripheral.disconnected()
            linkLost(reason.mobileWire, served: served)
        }
    }

    /// Stops a running automatic reconnect (Stripe's `Cancelable.cancel()`):
    /// `didFailReconnect`, then `didDisconnect`, follow.
    public func cancelReconnect() {
        feed { $0.cancelRequested() }?.cancel()
    }

    /// Disconnects the reader: the session lets it go, then the Bluetooth connection ends
    /// (`disconnectRequested`).
    public func disconnect() async throws {
        let (link, peripheral, task) = feed { $0.disconnecting() }
        task?.cancel()
        defer {
            link?.end(.disconnectRequested, reconnecting: false)
            peripheral?.disconnect()
        }
        try await client.disconnectReader()
    }

    /// The session resumed on a new connection while the reader stayed connected over
    /// Bluetooth: its link (dead with the old connection) attaches again, with the same
    /// credential, over the same Bluetooth connection. Nothing to do while a Bluetooth
    /// reconnect runs (it attaches a link of its own) or once the reader was let go.
    func reattachAfterSessionResumed() async {
        guard let (old, peripheral, served) = feed({ $0.reattachable }) else { return }
        old.abandon()
        let fresh: BluetoothReaderLink
        do {
            fresh = try await BluetoothReaderLink.attach(
                on: try await client.connection.channel(), peripheral: peripheral, credential: credential, heartbeatInterval: configuration.heartbeatInterval
            )
        } catch {
            Logger(component: "bluetooth").warning("a Bluetooth reader's link could not attach again after the session resumed; the gateway releases it after its offline bound", [
                "serial": reader.serialNumber, "error": "\(error)",
            ])
            return
        }
        // Still the same Bluetooth connection, and its link is the one that died.
        let kept = feed { $0.reattached(fresh, replacing: old, servedThen: served) }
        // Otherwise the link ends without a word: whoever changed the state meanwhile (a lost
        // Bluetooth connection, a disconnect) tells the gateway what it means.
        if !kept { fresh.abandon() }
    }

    private func linkLost(_ reason: ReaderGatewayV1.MobileDisconnectReason, served: UInt64) {
        // Only the connection being served counts (one the app let go ends quietly).
        let (outcome, link) = feed { $0.linkLost(reason, servedThen: served) }
        switch outcome {
        case .none:
            link?.end(reason, reconnecting: false)
        case .disconnected(let events):
            link?.end(reason, reconnecting: false)
            for event in events { eventSink.yield(event) }
        case .reconnect(let events):
            let endingSent = link?.end(reason, reconnecting: true)
            for event in events { eventSink.yield(event) }
            let task = Task { [self] in await reconnect(after: endingSent) }
            feed { $0.reconnectStarted(task) }
        }
    }

    /// Reconnects once the old link's ending is on its way (`endingSent`): on the same
    /// channel, the gateway then reads that ending before the new Attach replaces the old
    /// link (whose call then ends, dropping what arrives on it later).
    private func reconnect(after endingSent: Task<Void, Never>?) async {
        await endingSent?.value
        let outcome: MobileReconnectStateMachine.OnReconnectEnded
        var attached: (BluetoothReaderLink, any BluetoothPeripheral)?
        do {
            let peripheral = try await radio.connect(serialNumber: reader.serialNumber, timeout: configuration.reconnectTimeout)
            let link = try await BluetoothReaderLink.attach(
                on: try await client.connection.channel(), peripheral: peripheral, credential: credential, heartbeatInterval: configuration.heartbeatInterval
            )
            attached = (link, peripheral)
            outcome = feed { $0.reconnectSucceeded() }
        } catch {
            Logger(component: "bluetooth").notice("a Bluetooth reader did not reconnect", ["serial": reader.serialNumber, "error": "\(error)"])
            outcome = feed { $0.reconnectFailed() }
        }
        switch outcome {
        case .none:
            attached?.0.end(.disconnectRequested, reconnecting: false)
            attached?.1.disconnect()
        case .reconnected(let events):
            if let (link, peripheral) = attached { serve(link, over: peripheral, firstTime: false) }
            for event in events { eventSink.yield(event) }
        case .failed(let events, let reason):
            attached?.0.end(reason, reconnecting: false)
            attached?.1.disconnect()
            // The gateway kept the owner for the reconnect: let the reader go now.
            do { try await client.disconnectReader() } catch {
                Logger(component: "bluetooth").warning("could not release a Bluetooth reader after its reconnect failed; the gateway releases it after the offline bound", [
                    "serial": reader.serialNumber, "error": "\(error)",
                ])
            }
            for event in events { eventSink.yield(event) }
        }
    }
}
