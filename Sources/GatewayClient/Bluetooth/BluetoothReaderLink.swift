import GatewayCore
import GatewayRPC
import GatewayWire
import Synchronization

/// A Bluetooth reader's link to the gateway, carried by the point-of-sale device: the reader
/// side of `ReaderLink.Attach` on the lane's own connection. Commands from the gateway go to
/// the reader over Bluetooth (``BluetoothPeripheral/run(_:progress:)``), its results come back
/// up (a software update's progress before its result); the hello and heartbeats carry its
/// battery level and software version. When the Bluetooth connection ends the device says why
/// (``end(_:reconnecting:)``) before it ends the call.
final class BluetoothReaderLink: Sendable {
    private struct State {
        var activity = ReaderGatewayV1.ReaderActivity.idle
        var tasks: [Task<Void, Never>] = []
        var ended = false
    }

    /// The reader's id at the gateway.
    let readerID: String
    let link: ReaderLinkClient
    let peripheral: any BluetoothPeripheral
    let heartbeatInterval: Duration
    private let state = Mutex(State())
    private let outbox: AsyncStream<ReaderGatewayV1.ReaderUplink>.Continuation
    private let outgoing: AsyncStream<ReaderGatewayV1.ReaderUplink>

    private init(readerID: String, link: ReaderLinkClient, peripheral: any BluetoothPeripheral, heartbeatInterval: Duration) {
        self.readerID = readerID
        self.link = link
        self.peripheral = peripheral
        self.heartbeatInterval = heartbeatInterval
        (outgoing, outbox) = AsyncStream.makeStream()
    }

    /// Attaches the reader's link on `channel` with `credential` and returns once the gateway
    /// has it online.
    static func attach(
        on channel: ClientChannel, peripheral: any BluetoothPeripheral, credential: String, heartbeatInterval: Duration
    ) async throws -> BluetoothReaderLink {
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = peripheral.serialNumber
        hello.deviceType = peripheral.deviceType
        hello.softwareVersion = peripheral.softwareVersion
        if let level = peripheral.batteryLevel { hello.batteryLevel = level }
        hello.readerCredential = credential
        let link = try await ReaderLinkClient.attach(on: channel, hello: hello)
        var downlinks = link.downlinks.makeAsyncIterator()
        guard let first = try await downlinks.next(), case .registration(let registration)? = first.message, registration.registered else {
            link.cancel()
            throw RPCError(code: .failedPrecondition, reason: .readerCredentialInvalid, message: "the gateway did not take the Bluetooth reader's link; connect the reader again")
        }
        let reader = BluetoothReaderLink(readerID: registration.readerID, link: link, peripheral: peripheral, heartbeatInterval: heartbeatInterval)
        reader.start(downlinks)
        return reader
    }

    /// Tells the gateway why the link ends (and whether the device reconnects), then ends it.
    /// Returns the task that sends the ending (it ends once the ending is on its way and the
    /// call half-closed): a reconnect awaits it before its new Attach, so the gateway reads
    /// this link's ending before the new link replaces it (a replaced call's later messages
    /// are dropped, and its end would be recorded without a reason).
    @discardableResult
    func end(_ reason: ReaderGatewayV1.MobileDisconnectReason, reconnecting: Bool) -> Task<Void, Never>? {
        let tasks = state.withLock { state -> [Task<Void, Never>]? in
            guard !state.ended else { return nil }
            state.ended = true
            defer { state.tasks = [] }
            return state.tasks
        }
        guard let tasks else { return nil }
        var ending = ReaderGatewayV1.ReaderLinkEnding()
        ending.reason = reason
        ending.reconnecting = reconnecting
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .linkEnding(ending)
        outbox.yield(uplink)
        outbox.finish()
        // The sender drains the outbox (the ending last), then half-closes the call; the
        // command loop ends with the call (cancelling it would cancel the call at once).
        if tasks.count > 1 { tasks[1].cancel() }
        return tasks.count > 2 ? tasks[2] : nil
    }

    /// Stops serving a link whose call died with its connection (nothing can be sent on it):
    /// its heartbeats and sender stop. The Bluetooth connection is untouched.
    func abandon() {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            state.ended = true
            defer { state.tasks = [] }
            return state.tasks
        }
        for task in tasks { task.cancel() }
        outbox.finish()
        link.cancel()
    }

    private func start(_ downlinks: sending ResponseStream<ReaderGatewayV1.ReaderDownlink>.AsyncIterator) {
        let commands = Task { [self] in
            var downlinks = downlinks
            while let downlink = try? await downlinks.next() {
                guard case .command(let command)? = downlink.message else { continue }
                // Each command on its own task: a cancel must reach a collect that waits.
                Task { await run(command) }
            }
        }
        let heartbeats = Task { [self] in
            while !Task.isCancelled {
                heartbeat()
                do { try await Task.sleep(for: heartbeatInterval) } catch { return }
            }
        }
        let sender = Task { [self] in
            for await uplink in outgoing {
                do {
                    try await link.call.send(uplink)
                } catch {
                    Logger(component: "bluetooth").warning("the Bluetooth reader's link could not send to the gateway", ["reader": readerID, "error": "\(error)"])
                    break
                }
            }
            link.finish()
        }
        // ``end(_:reconnecting:)`` relies on this order.
        state.withLock { $0.tasks = [commands, heartbeats, sender] }
    }

    private func run(_ command: ReaderGatewayV1.ReaderCommand) async {
        var version = ""
        switch command.command {
        case .collectPaymentMethod?: setActivity(.collecting)
        case .confirmPaymentIntent?: setActivity(.confirming)
        case .installUpdate(let update)?:
            version = update.version
            setActivity(.updating)
        default: break
        }
        let outbox = self.outbox
        let result = await peripheral.run(command) { [version] progress in
            var report = ReaderGatewayV1.ReaderUpdateProgress()
            report.version = version
            report.progress = progress
            var uplink = ReaderGatewayV1.ReaderUplink()
            uplink.message = .updateProgress(report)
            outbox.yield(uplink)
        }
        // Back to idle before the answer: after an install, the heartbeat carries the new
        // version, so the gateway's next decision sees it.
        switch command.command {
        case .collectPaymentMethod?, .confirmPaymentIntent?, .installUpdate?: setActivity(.idle)
        default: break
        }
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .commandResult(result)
        outbox.yield(uplink)
        heartbeat()
        // The reader reboots once its answer is on its way (the disconnect follows it).
        if case .reboot? = command.command, result.status?.code ?? .ok == .ok { peripheral.reboot() }
    }

    private func setActivity(_ activity: ReaderGatewayV1.ReaderActivity) {
        state.withLock { $0.activity = activity }
        heartbeat()
    }

    private func heartbeat() {
        var heartbeat = ReaderGatewayV1.ReaderHeartbeat()
        heartbeat.activity = state.withLock { $0.activity }
        if let level = peripheral.batteryLevel { heartbeat.batteryLevel = level }
        heartbeat.softwareVersion = peripheral.softwareVersion
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .heartbeat(heartbeat)
        outbox.yield(uplink)
    }
}
