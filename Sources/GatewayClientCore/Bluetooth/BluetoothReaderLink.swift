import GatewayCore
import GatewayChannel
import GatewayWire
import Synchronization

/// A Bluetooth reader's link to the gateway, carried by the point-of-sale device: the reader
/// side of `ReaderLink.Attach` on the lane's own connection. Commands from the gateway go to
/// the reader over Bluetooth (``BluetoothPeripheral/run(_:progress:)``), its results come back
/// up (a software update's progress before its result); the hello and heartbeats carry its
/// battery level and software version. When the Bluetooth connection ends the device says why
/// (``end(_:reconnecting:)``) before it ends the call.
final class BluetoothReaderLink: Sendable {
    /// The reader's id at the gateway.
    let readerID: String
    let peripheral: any BluetoothPeripheral
    private let carrier: MobileReaderLinkCarrier
    /// What the reader is doing (a ``ReaderGatewayV1/ReaderActivity`` raw value), for heartbeats.
    private let activity = Atomic<Int32>(ReaderGatewayV1.ReaderActivity.idle.rawValue)

    private init(readerID: String, link: ReaderLinkCall, peripheral: any BluetoothPeripheral) {
        self.readerID = readerID
        self.peripheral = peripheral
        carrier = MobileReaderLinkCarrier(link: link, readerID: readerID, what: "the Bluetooth reader's link", logComponent: "bluetooth")
    }

    /// Attaches the reader's link on `channel` with `credential` and returns once the gateway
    /// has it online.
    static func attach(
        on channel: ClientChannel, peripheral: any BluetoothPeripheral, credential: String, heartbeatInterval: Duration
    ) async throws -> BluetoothReaderLink {
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = peripheral.serialNumber
        hello.deviceType = peripheral.deviceType.wire
        hello.softwareVersion = peripheral.softwareVersion
        if let level = peripheral.batteryLevel { hello.batteryLevel = level }
        hello.readerCredential = credential
        let link = try await ReaderLinkCall.attach(on: channel, hello: hello)
        var downlinks = link.downlinks.makeAsyncIterator()
        guard let first = try await downlinks.next(), case .registration(let registration)? = first.message, registration.registered else {
            link.cancel()
            throw RPCError(code: .failedPrecondition, reason: .readerCredentialInvalid, message: "the gateway did not take the Bluetooth reader's link; connect the reader again")
        }
        let reader = BluetoothReaderLink(readerID: registration.readerID, link: link, peripheral: peripheral)
        // Each command on its own task: a cancel must reach a collect that waits.
        reader.carrier.start(downlinks, heartbeatInterval: heartbeatInterval, heartbeat: { [reader] in reader.heartbeat() }) { [reader] command in
            Task { await reader.run(command) }
        }
        return reader
    }

    /// Tells the gateway why the link ends (and whether the device reconnects), then ends it;
    /// the task that sends the ending (``MobileReaderLinkCarrier/end(_:reconnecting:)``).
    @discardableResult
    func end(_ reason: ReaderGatewayV1.MobileDisconnectReason, reconnecting: Bool) -> Task<Void, Never>? {
        carrier.end(reason, reconnecting: reconnecting)
    }

    /// Stops serving a link whose call died with its connection (nothing can be sent on it):
    /// its heartbeats and sender stop. The Bluetooth connection is untouched.
    func abandon() {
        carrier.stop(cancellingCall: true)
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
        let carrier = self.carrier
        let result = await peripheral.run(command) { [version] progress in
            var report = ReaderGatewayV1.ReaderUpdateProgress()
            report.version = version
            report.progress = progress
            carrier.send(.updateProgress(report))
        }
        // Back to idle before the answer: after an install, the heartbeat carries the new
        // version, so the gateway's next decision sees it.
        switch command.command {
        case .collectPaymentMethod?, .confirmPaymentIntent?, .installUpdate?: setActivity(.idle)
        default: break
        }
        carrier.send(.commandResult(result))
        heartbeat()
        // The reader reboots once its answer is on its way (the disconnect follows it).
        if case .reboot? = command.command, result.status?.code ?? .ok == .ok { peripheral.reboot() }
    }

    private func setActivity(_ activity: ReaderGatewayV1.ReaderActivity) {
        self.activity.store(activity.rawValue, ordering: .relaxed)
        heartbeat()
    }

    private func heartbeat() {
        var heartbeat = ReaderGatewayV1.ReaderHeartbeat()
        heartbeat.activity = ReaderGatewayV1.ReaderActivity(rawValue: activity.load(ordering: .relaxed))
        if let level = peripheral.batteryLevel { heartbeat.batteryLevel = level }
        heartbeat.softwareVersion = peripheral.softwareVersion
        carrier.send(.heartbeat(heartbeat))
    }
}
