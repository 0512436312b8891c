import GatewayTestKit
import Foundation
import GatewayTransport
import GatewayWire
import Synchronization

/// A simulated smart reader speaking `ReaderLink.Attach` over its own connection.
///
/// It heartbeats every 200 ms (until ``goSilent()``), answers commands at once
/// except collects, which it holds until ``finishCollect()`` or a cancel.
final class TestReader: Sendable {
    let channel: TestChannel
    let callID: UInt32
    let serial: String
    private struct State {
        var registrations: [ReaderGatewayV1.RegistrationState] = []
        var commands: [ReaderGatewayV1.ReaderCommand] = []
        var owners: [ReaderGatewayV1.OwnerChanged] = []
        var heldCollect: UInt64?
        var ended: ReaderGatewayV1.Status?
        var silent = false
        var activity = ReaderGatewayV1.ReaderActivity.idle
        /// The next confirm fails with this status (``failNextConfirm(_:)``).
        var confirmFailure: ReaderGatewayV1.Status?
    }
    private let state = Mutex(State())
    private let tasks = Mutex<[Task<Void, Never>]>([])

    private init(channel: TestChannel, callID: UInt32, serial: String) {
        self.channel = channel
        self.callID = callID
        self.serial = serial
    }

    static func attach(
        _ harness: GatewayHarness,
        serial: String,
        certificate: CertificateKeyPair? = nil,
        credential: String = "",
        sessions: TLSSessionCache? = nil
    ) async throws -> TestReader {
        let channel = try await harness.channel(certificate: certificate, sessions: sessions)
        let (id, events) = try channel.start(ReaderGatewayV1.ReaderLink.attach.path)
        let reader = TestReader(channel: channel, callID: id, serial: serial)
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = serial
        hello.deviceType = .simulatedWiseposE
        hello.softwareVersion = "2.30.1"
        hello.readerCredential = credential
        hello.ipAddress = "10.0.0.7"
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .hello(hello)
        try channel.send(uplink, on: id)
        let pump = Task { await reader.pump(events) }
        let beat = Task { await reader.heartbeatLoop() }
        reader.tasks.withLock { $0 = [pump, beat] }
        return reader
    }

    private func pump(_ events: AsyncStream<CallEvent>) async {
        for await event in events {
            switch event {
            case .message(let bytes):
                guard let downlink = try? ReaderGatewayV1.ReaderDownlink(serializedBytes: bytes) else { continue }
                switch downlink.message {
                case .registration(let registration):
                    state.withLock { $0.registrations.append(registration) }
                case .ownerChanged(let owner):
                    state.withLock { $0.owners.append(owner) }
                case .command(let command):
                    handle(command)
                case nil:
                    break
                }
            case .ended(let status):
                state.withLock { $0.ended = status }
            }
        }
        state.withLock { if $0.ended == nil { $0.ended = ReaderGatewayV1.Status(.connectionLost, "closed") } }
    }

    private func heartbeatLoop() async {
        while !Task.isCancelled {
            let (silent, activity) = state.withLock { ($0.silent, $0.activity) }
            if !silent {
                var heartbeat = ReaderGatewayV1.ReaderHeartbeat()
                heartbeat.activity = activity
                heartbeat.batteryLevel = 0.8
                heartbeat.ipAddress = "10.0.0.7"
                var uplink = ReaderGatewayV1.ReaderUplink()
                uplink.message = .heartbeat(heartbeat)
                try? channel.send(uplink, on: callID)
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    private func handle(_ command: ReaderGatewayV1.ReaderCommand) {
        state.withLock { $0.commands.append(command) }
        switch command.command {
        case .collectPaymentMethod?:
            state.withLock {
                $0.heldCollect = command.commandID
                $0.activity = .collecting
            }
        case .cancelCollect?:
            let held = state.withLock { state -> UInt64? in
                defer { state.heldCollect = nil; state.activity = .idle }
                return state.heldCollect
            }
            if let held { answer(held, status: ReaderGatewayV1.Status(.commandCanceled, "cancelled on the reader")) }
            if command.commandID != 0 { answer(command.commandID) }
        case .confirmPaymentIntent(let params)?:
            if let failure = state.withLock({ state in defer { state.confirmFailure = nil }; return state.confirmFailure }) {
                answer(command.commandID, status: failure)
                return
            }
            var intent = ReaderGatewayV1.PaymentIntentResult()
            intent.paymentIntentID = params.paymentIntentID
            intent.status = "succeeded"
            intent.amountReceived = 1000
            answer(command.commandID, result: .paymentIntent(intent))
        case .reboot?:
            answer(command.commandID)
            Task {
                try? await Task.sleep(for: .milliseconds(50))
                self.disconnect()
            }
        case .installUpdate?:
            answer(command.commandID, result: .updateVersion("2.31.0"))
        default:
            answer(command.commandID)
        }
    }

    private func answer(_ id: UInt64, status: ReaderGatewayV1.Status = .ok, result: ReaderGatewayV1.CommandResult.Result? = nil) {
        var message = ReaderGatewayV1.CommandResult()
        message.commandID = id
        message.status = status
        if status.code == .ok { message.result = result }
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .commandResult(message)
        try? channel.send(uplink, on: callID)
    }

    /// Presents a test card to the held collect.
    func finishCollect() {
        let held = state.withLock { state -> UInt64? in
            defer { state.heldCollect = nil; state.activity = .idle }
            return state.heldCollect
        }
        guard let held else { return }
        var card = ReaderGatewayV1.PaymentMethod()
        card.id = "pm_test"
        card.brand = "visa"
        card.last4 = "4242"
        answer(held, result: .paymentMethod(card))
    }

    /// Fails the held collect with `status` (a decline, a reader fault) as a reader reports it.
    func failCollect(_ status: ReaderGatewayV1.Status) {
        let held = state.withLock { state -> UInt64? in
            defer { state.heldCollect = nil; state.activity = .idle }
            return state.heldCollect
        }
        guard let held else { return }
        answer(held, status: status)
    }

    /// Fails the next confirm with `status` (a decline at confirm, as the card's issuer gives it).
    func failNextConfirm(_ status: ReaderGatewayV1.Status) { state.withLock { $0.confirmFailure = status } }

    /// Stops heartbeating, keeping the connection open.
    func goSilent() { state.withLock { $0.silent = true } }

    /// Drops the connection.
    func disconnect() {
        tasks.withLock { for task in $0 { task.cancel() } }
        channel.close()
    }

    var registrations: [ReaderGatewayV1.RegistrationState] { state.withLock { $0.registrations } }
    var commands: [ReaderGatewayV1.ReaderCommand] { state.withLock { $0.commands } }
    var owners: [ReaderGatewayV1.OwnerChanged] { state.withLock { $0.owners } }
    var endStatus: ReaderGatewayV1.Status? { state.withLock { $0.ended } }
    var isHoldingCollect: Bool { state.withLock { $0.heldCollect != nil } }

    /// The reader id once the gateway says it is registered and online.
    func waitUntilRegistered(timeout: Duration = outcomeDeadline) async -> ReaderGatewayV1.RegistrationState? {
        _ = await eventually(timeout: timeout) { registrations.contains { $0.registered } || endStatus != nil }
        return registrations.last { $0.registered }
    }

    /// The registration code once the gateway sent one.
    func waitForCode(timeout: Duration = outcomeDeadline) async -> String? {
        _ = await eventually(timeout: timeout) { registrations.contains { !$0.registrationCode.isEmpty } || endStatus != nil }
        return registrations.last { !$0.registrationCode.isEmpty }?.registrationCode
    }

    func waitUntilEnded(timeout: Duration = outcomeDeadline) async -> ReaderGatewayV1.Status? {
        _ = await eventually(timeout: timeout) { endStatus != nil }
        return endStatus
    }
}
