import GatewayClient
import GatewayTransport
import GatewayWire
import GatewayWireClients
import Synchronization

/// A smart reader in this process over the real protocol (`ReaderLink.Attach` over mutual TLS
/// with its serial's certificate), that re-attaches by itself whenever its link ends — through
/// the load balancer (any replica) or to replicas' ports in order of preference.
///
/// It heartbeats every 200 ms with its activity and answers commands: collects are held until
/// ``finishCollect()`` (or a cancel) when `holdCollects`, otherwise answered after
/// `collectDuration`; everything else is answered at once.
final class ClusterReader: Sendable {
    let serial: String
    /// Where it attaches, in order of preference: each attach tries them until one connects.
    let ports: [Int]
    var port: Int { ports[0] }
    private let configurations: [ClientChannelConfiguration]
    private let group: EventLoopGroup

    private struct State {
        var readerID: String?
        var attached = false
        var attachments = 0
        var channel: ClientChannel?
        var link: ReaderLinkClient?
        /// The number of the link ``link`` is (each attach numbers its link, from 1).
        var linkNumber = 0
        var heldCollect: HeldCollect?
        var activity = ReaderGatewayV1.ReaderActivity.idle
        var holdCollects: Bool
        var collectDuration: Duration
        var commands = 0
        /// Collect timers that ran out and looked at what the reader held.
        var collectTimersRun = 0
        var linkEnds: [String] = []
        var owners: [ReaderGatewayV1.OwnerChanged] = []
        var task: Task<Void, Never>?
    }
    private let state: Mutex<State>

    /// A collect the reader holds: the gateway numbers commands per link (each link's from 1),
    /// so a command is known by its link and its id together.
    private struct HeldCollect: Equatable {
        var link: Int
        var id: UInt64
    }

    /// When a held collect runs out: after `collectDuration`, or when `collectTimer` (given
    /// the link's number) returns, for tests that order a collect's end against other events.
    private let collectTimer: (@Sendable (_ link: Int) async -> Void)?

    init(
        serial: String, ports: [Int], caPath: String, certificate: CertificateKeyPair, group: EventLoopGroup, holdCollects: Bool = false,
        collectDuration: Duration = .milliseconds(150), collectTimer: (@Sendable (_ link: Int) async -> Void)? = nil
    ) {
        precondition(!ports.isEmpty)
        self.collectTimer = collectTimer
        self.serial = serial
        self.ports = ports
        self.group = group
        configurations = ports.map { port in
            var configuration = ClientChannelConfiguration(
                host: "127.0.0.1", port: port, trustedCAPath: caPath, clientCertificate: certificate,
                keepalive: .init(interval: .seconds(5), timeout: .seconds(5))
            )
            configuration.connectTimeout = .seconds(2)
            return configuration
        }
        state = Mutex(State(holdCollects: holdCollects, collectDuration: collectDuration))
    }

    /// Starts attaching (and re-attaching) in the background.
    func start() {
        let task = Task { [self] in await run() }
        state.withLock { $0.task = task }
    }

    /// Stops for good and closes the link.
    func stop() {
        let (task, channel) = state.withLock { state -> (Task<Void, Never>?, ClientChannel?) in
            defer { state.task = nil }
            return (state.task, state.channel)
        }
        task?.cancel()
        channel?.close()
    }

    var readerID: String? { state.withLock { $0.readerID } }
    /// Whether the gateway accepted the current link (registration state received).
    var isAttached: Bool { state.withLock { $0.attached } }
    /// How many links the gateway accepted so far.
    var attachments: Int { state.withLock { $0.attachments } }
    var isHoldingCollect: Bool { state.withLock { $0.heldCollect != nil } }
    var commandCount: Int { state.withLock { $0.commands } }
    var collectTimersRun: Int { state.withLock { $0.collectTimersRun } }
    /// Why each earlier link ended.
    var linkEnds: [String] { state.withLock { $0.linkEnds } }
    var owners: [ReaderGatewayV1.OwnerChanged] { state.withLock { $0.owners } }

    func setHoldCollects(_ hold: Bool) { state.withLock { $0.holdCollects = hold } }

    /// Closes the current link as a lost network would; the reader re-attaches.
    func dropLink() { state.withLock { $0.channel }?.close() }

    /// Waits until the gateway has accepted a link with number above `attachments`.
    func waitForAttachment(after attachments: Int, timeout: Duration) async -> Bool {
        await eventuallyIgnoringErrors(timeout: timeout) { state.withLock { $0.attached && $0.attachments > attachments } }
    }

    /// Presents a test card to the held collect.
    func finishCollect() {
        let (held, link) = state.withLock { state -> (HeldCollect?, ReaderLinkClient?) in
            defer {
                state.heldCollect = nil
                state.activity = .idle
            }
            // Held on the current link (what a link held ends with it).
            return (state.heldCollect.flatMap { $0.link == state.linkNumber ? $0 : nil }, state.link)
        }
        guard let held, let link else { return }
        Task { await Self.answer(held.id, on: link, result: .paymentMethod(Self.card)) }
    }

    /// Declines the held collect with `code`, as a reader reports a declined card.
    func declineCollect(code: String) {
        let (held, link) = state.withLock { state -> (HeldCollect?, ReaderLinkClient?) in
            defer {
                state.heldCollect = nil
                state.activity = .idle
            }
            return (state.heldCollect.flatMap { $0.link == state.linkNumber ? $0 : nil }, state.link)
        }
        guard let held, let link else { return }
        var status = ReaderGatewayV1.Status(.cardDeclined, "the card was declined (\(code))")
        status.declineCode = code
        Task { await Self.answer(held.id, on: link, status: status) }
    }

    private static var card: ReaderGatewayV1.PaymentMethod {
        var card = ReaderGatewayV1.PaymentMethod()
        card.id = "pm_cluster"
        card.brand = "visa"
        card.last4 = "4242"
        return card
    }

    // MARK: the link

    private func run() async {
        for _ in 0..<1_000_000 {
            if Task.isCancelled { return }
            await attachOnce()
            if Task.isCancelled { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    private func attachOnce() async {
        var connected: ClientChannel?
        for configuration in configurations where connected == nil {
            do {
                connected = try await ClientChannel.connect(configuration, group: group)
            } catch {
                state.withLock { $0.linkEnds.append("connect to :\(configuration.port) failed: \(error)") }
            }
        }
        guard let channel = connected else { return }
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = serial
        hello.deviceType = .simulatedWiseposE
        hello.softwareVersion = "2.30.1"
        hello.ipAddress = "10.0.0.7"
        let link: ReaderLinkClient
        do {
            link = try await ReaderLinkClient.attach(on: channel, hello: hello)
        } catch {
            channel.close()
            state.withLock { $0.linkEnds.append("attach failed: \(error)") }
            return
        }
        let (stopped, number) = state.withLock { state -> (Bool, Int) in
            state.channel = channel
            state.link = link
            state.linkNumber += 1
            return (state.task == nil, state.linkNumber)
        }
        if stopped {
            channel.close()
            return
        }
        let heartbeats = Task { [self] in await heartbeatLoop(link) }
        var reason = "the gateway ended the link"
        do {
            for try await downlink in link.downlinks {
                handle(downlink, link: link, number: number)
            }
        } catch {
            reason = "\(error)"
        }
        heartbeats.cancel()
        channel.close()
        state.withLock { state in
            state.linkEnds.append(reason)
            // What this link held ends with it; a newer link's state is its own.
            if state.heldCollect?.link == number {
                state.heldCollect = nil
                state.activity = .idle
            }
            guard state.linkNumber == number else { return }
            state.attached = false
            state.channel = nil
            state.link = nil
        }
    }

    private func heartbeatLoop(_ link: ReaderLinkClient) async {
        for _ in 0..<10_000_000 {
            if Task.isCancelled { return }
            var heartbeat = ReaderGatewayV1.ReaderHeartbeat()
            heartbeat.activity = state.withLock { $0.activity }
            heartbeat.batteryLevel = 0.8
            heartbeat.ipAddress = "10.0.0.7"
            try? await link.heartbeat(heartbeat)
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    private func handle(_ downlink: ReaderGatewayV1.ReaderDownlink, link: ReaderLinkClient, number: Int) {
        switch downlink.message {
        case .registration(let registration)?:
            guard registration.registered else { return }
            state.withLock { state in
                state.readerID = registration.readerID
                if !state.attached {
                    state.attached = true
                    state.attachments += 1
                }
            }
        case .ownerChanged(let owner)?:
            state.withLock { $0.owners.append(owner) }
        case .command(let command)?:
            handle(command, link: link, number: number)
        case nil:
            break
        }
    }

    private func handle(_ command: ReaderGatewayV1.ReaderCommand, link: ReaderLinkClient, number: Int) {
        let id = command.commandID
        let collect = HeldCollect(link: number, id: id)
        switch command.command {
        case .collectPaymentMethod?:
            let hold = state.withLock { state -> Duration? in
                state.commands += 1
                state.heldCollect = collect
                state.activity = .collecting
                return state.holdCollects ? nil : state.collectDuration
            }
            if let delay = hold {
                Task { [self] in
                    if let collectTimer { await collectTimer(number) } else { try? await Task.sleep(for: delay) }
                    // This very collect: the same id on a later link is another command.
                    let still = state.withLock { state -> Bool in
                        state.collectTimersRun += 1
                        guard state.heldCollect == collect else { return false }
                        state.heldCollect = nil
                        state.activity = .idle
                        return true
                    }
                    if still { await Self.answer(id, on: link, result: .paymentMethod(Self.card)) }
                }
            }
        case .cancelCollect?:
            let held = state.withLock { state -> UInt64? in
                state.commands += 1
                guard let held = state.heldCollect, held.link == number else { return nil }
                state.heldCollect = nil
                state.activity = .idle
                return held.id
            }
            Task {
                if let held { await Self.answer(held, on: link, status: ReaderGatewayV1.Status(.commandCanceled, "cancelled on the reader")) }
                if id != 0 { await Self.answer(id, on: link) }
            }
        case .confirmPaymentIntent(let params)?:
            state.withLock { $0.commands += 1 }
            var intent = ReaderGatewayV1.PaymentIntentResult()
            intent.paymentIntentID = params.paymentIntentID
            intent.status = "succeeded"
            intent.amountReceived = 1000
            Task { await Self.answer(id, on: link, result: .paymentIntent(intent)) }
        default:
            state.withLock { $0.commands += 1 }
            Task { await Self.answer(id, on: link) }
        }
    }

    private static func answer(_ id: UInt64, on link: ReaderLinkClient, status: ReaderGatewayV1.Status = .ok, result: ReaderGatewayV1.CommandResult.Result? = nil) async {
        var message = ReaderGatewayV1.CommandResult()
        message.commandID = id
        message.status = status
        if status.code == .ok { message.result = result }
        try? await link.sendResult(message)
    }
}
