import GatewayCore
import GatewayRPC
import GatewayWire
import Synchronization

/// A connected Bluetooth reader (what ``TerminalClient/connectBluetoothReader(_:radio:_:)``
/// returns): its events (Stripe's `MobileReaderDelegate`), the reconnect's `Cancelable`, and
/// disconnect. Payments go through the ``TerminalClient`` as with any reader.
public final class BluetoothReaderConnection: Sendable {
    struct State {
        var reconnect = MobileReconnectStateMachine()
        var link: BluetoothReaderLink?
        var peripheral: (any BluetoothPeripheral)?
        var reconnectTask: Task<Void, Never>?
        /// Counts the Bluetooth connections served; a loss reported for an older one is ignored.
        var served: UInt64 = 0
        /// Why the required update failed during the connect that still succeeded.
        var requiredUpdateFailure: ReaderGatewayV1.Status?
    }

    /// The reader as the gateway registered it (id, serial, location).
    public let reader: ReaderGatewayV1.Reader
    /// The reader's events, in order (single consumer).
    public let events: AsyncStream<MobileReaderEvent>
    let eventSink: AsyncStream<MobileReaderEvent>.Continuation
    let client: TerminalClient
    let radio: any BluetoothRadio
    let credential: String
    let configuration: BluetoothConnectionConfiguration
    let state = Mutex(State())

    init(
        reader: ReaderGatewayV1.Reader, client: TerminalClient, radio: any BluetoothRadio, credential: String,
        configuration: BluetoothConnectionConfiguration
    ) {
        self.reader = reader
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
    public var requiredUpdateFailure: ReaderGatewayV1.Status? { state.withLock { $0.requiredUpdateFailure } }

    /// Starts serving `link` over `peripheral` (first connect, or a reconnect).
    func serve(_ link: BluetoothReaderLink, over peripheral: any BluetoothPeripheral, firstTime: Bool) {
        let served = state.withLock { state -> UInt64 in
            state.link = link
            state.peripheral = peripheral
            state.served += 1
            if firstTime {
                state.reconnect.connected(serialNumber: reader.serialNumber, autoReconnect: configuration.autoReconnectOnUnexpectedDisconnect)
            }
            return state.served
        }
        Task { [self] in
            let reason = await peripheral.disconnected()
            linkLost(reason, served: served)
        }
    }

    /// Stops a running automatic reconnect (Stripe's `Cancelable.cancel()`):
    /// `didFailReconnect`, then `didDisconnect`, follow.
    public func cancelReconnect() {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard state.reconnect.cancelRequested() else { return nil }
            return state.reconnectTask
        }
        task?.cancel()
    }

    /// Disconnects the reader: the session lets it go, then the Bluetooth connection ends
    /// (`disconnectRequested`).
    public func disconnect() async throws {
        let (link, peripheral, task) = state.withLock { state in
            state.reconnect.released()
            defer { (state.link, state.peripheral, state.reconnectTask) = (nil, nil, nil) }
            return (state.link, state.peripheral, state.reconnectTask)
        }
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
        guard let (old, peripheral, served) = state.withLock({ state -> (BluetoothReaderLink, any BluetoothPeripheral, UInt64)? in
            guard case .connected = state.reconnect.state, let link = state.link, let peripheral = state.peripheral else { return nil }
            return (link, peripheral, state.served)
        }) else { return }
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
        let kept = state.withLock { state -> Bool in
            // Still the same Bluetooth connection, and its link is the one that died.
            guard state.served == served, state.link === old else { return false }
            state.link = fresh
            return true
        }
        // Otherwise the link ends without a word: whoever changed the state meanwhile (a lost
        // Bluetooth connection, a disconnect) tells the gateway what it means.
        if !kept { fresh.abandon() }
    }

    private func linkLost(_ reason: ReaderGatewayV1.MobileDisconnectReason, served: UInt64) {
        let (outcome, link) = state.withLock { state -> (MobileReconnectStateMachine.OnLinkLost, BluetoothReaderLink?) in
            // Only the connection being served counts (one the app let go ends quietly).
            guard state.served == served, state.peripheral != nil else { return (.none, nil) }
            let outcome = state.reconnect.linkLost(reason)
            defer { (state.link, state.peripheral) = (nil, nil) }
            return (outcome, state.link)
        }
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
            state.withLock { $0.reconnectTask = task }
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
            outcome = state.withLock { $0.reconnect.reconnectSucceeded() }
        } catch {
            Logger(component: "bluetooth").notice("a Bluetooth reader did not reconnect", ["serial": reader.serialNumber, "error": "\(error)"])
            outcome = state.withLock { $0.reconnect.reconnectFailed() }
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
