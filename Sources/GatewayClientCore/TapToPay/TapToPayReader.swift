import GatewayCore
import GatewayChannel
import GatewayWire
import Synchronization

/// The phone's own Tap to Pay reader: the reader side of `ReaderLink.Attach`, carried by the
/// lane's connection. It answers the gateway's commands as the phone's NFC reader would: a
/// collect waits for the customer's tap (``presentCard(brand:last4:)``, or at once with
/// ``Options/tapAutomatically``), a cancel ends it with `COMMAND_CANCELED`, a confirm
/// succeeds for the amount collected. ``TerminalClient/connectTapToPayReader(device:_:)``
/// starts it; the app only taps.
public final class TapToPayReader: Sendable {
    /// How the simulated reader behaves.
    public struct Options: Sendable, Hashable {
        /// How often the reader reports itself alive (the gateway's offline bound must be
        /// longer).
        public var heartbeatInterval: Duration
        /// The card a collect reads at once, without waiting for ``TapToPayReader/presentCard(brand:last4:)``.
        public var tapAutomatically: Card?
        /// The software version the reader reports.
        public var softwareVersion: String
        /// How long the simulated device's setup takes (its progress is reported in quarters)
        /// when the gateway asks for one at connect.
        public var setupDuration: Duration

        public init(
            heartbeatInterval: Duration = .milliseconds(500), tapAutomatically: Card? = nil, softwareVersion: String = "ttp-1.0.0",
            setupDuration: Duration = .milliseconds(200)
        ) {
            self.heartbeatInterval = heartbeatInterval
            self.tapAutomatically = tapAutomatically
            self.softwareVersion = softwareVersion
            self.setupDuration = setupDuration
        }
    }

    /// A card (or wallet) the customer taps.
    public typealias Card = PresentedCard

    /// What the reader holds between commands, as a value: the collect waiting for a tap, a
    /// tap that came first, the amount a confirm charges, the activity heartbeats carry.
    struct State: Sendable {
        /// The collect waiting for a tap: its command id and amount.
        private var collect: (id: UInt64, amount: Int64)?
        /// A tap that came before any collect waited for it.
        private var tapped: Card?
        /// The amount of the last collect that read a card.
        private(set) var lastAmount: Int64 = 0
        private(set) var activity = ReaderGatewayV1.ReaderActivity.idle

        /// Whether a collect is waiting for a tap.
        var isWaitingForTap: Bool { collect != nil }

        /// The customer tapped `card`: the waiting collect's command id to answer, or nil (the
        /// next collect reads the card).
        mutating func cardPresented(_ card: Card) -> UInt64? {
            guard let waiting = collect else {
                tapped = card
                return nil
            }
            collect = nil
            lastAmount = waiting.amount
            activity = .idle
            return waiting.id
        }

        /// Collect `id` for `amount` started: the card it reads at once (tapped before, or
        /// `automatic`), or nil when it waits for a tap.
        mutating func collectStarted(id: UInt64, amount: Int64, automatic: Card?) -> Card? {
            if let card = tapped ?? automatic {
                tapped = nil
                lastAmount = amount
                return card
            }
            collect = (id, amount)
            activity = .collecting
            return nil
        }

        /// The gateway cancelled the collect: the waiting collect's command id, if one waited.
        mutating func collectCancelled() -> UInt64? {
            defer {
                collect = nil
                activity = .idle
            }
            return collect?.id
        }
    }

    /// The reader's id at the gateway.
    public let readerID: String
    let options: Options
    private let state = Mutex(State())
    private let carrier: MobileReaderLinkCarrier

    /// Feeds one event to the state under its lock and returns what it asks for; the reader
    /// sends after the lock is released.
    private func feed<Action: Sendable>(_ event: (inout State) -> Action) -> Action {
        state.withLock { event(&$0) }
    }

    private init(readerID: String, link: ReaderLinkCall, options: Options) {
        self.readerID = readerID
        self.options = options
        carrier = MobileReaderLinkCarrier(link: link, readerID: readerID, what: "the Tap to Pay reader's link", logComponent: "tap-to-pay")
    }

    /// Attaches the reader's link on `channel` with the credential its connect issued, and
    /// returns once the gateway has it online.
    static func attach(on channel: ClientChannel, serial: String, credential: String, options: Options) async throws -> TapToPayReader {
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = serial
        hello.deviceType = .tapToPay
        hello.softwareVersion = options.softwareVersion
        hello.readerCredential = credential
        let link = try await ReaderLinkCall.attach(on: channel, hello: hello)
        var downlinks = link.downlinks.makeAsyncIterator()
        // The gateway answers a credential it accepts with the registration state, once online.
        guard let first = try await downlinks.next(), case .registration(let registration)? = first.message, registration.registered else {
            link.cancel()
            throw RPCError(code: .failedPrecondition, reason: .readerCredentialInvalid, message: "the gateway did not take the Tap to Pay reader's link; connect the Tap to Pay reader again")
        }
        let reader = TapToPayReader(readerID: registration.readerID, link: link, options: options)
        reader.carrier.start(downlinks, heartbeatInterval: options.heartbeatInterval, heartbeat: { [reader] in reader.heartbeat() }) { [reader] command in
            reader.run(command)
        }
        return reader
    }

    /// The customer taps a card (or a phone wallet): the waiting collect reads it, or the next
    /// one does.
    public func presentCard(_ card: Card = Card()) {
        if let id = feed({ $0.cardPresented(card) }) { send(Self.collected(id: id, card: card, reader: readerID)) }
    }

    /// Whether a collect is waiting for a tap.
    public var isWaitingForTap: Bool { feed { $0.isWaitingForTap } }

    /// Ends the reader's link at once, saying nothing (the session's next command finds the
    /// reader offline; a link whose connection dropped is dead already).
    public func stop() {
        carrier.stop(cancellingCall: false)
    }

    /// Tells the gateway why the link ends (`ReaderLinkEnding`: the app went to the
    /// background) and whether the phone reconnects (the gateway then keeps the owner), then
    /// ends it. Returns the task that sends the ending: a reconnect on the same connection
    /// awaits it, so the gateway reads this ending before the new link.
    @discardableResult
    func end(_ reason: ReaderGatewayV1.MobileDisconnectReason, reconnecting: Bool) -> Task<Void, Never>? {
        carrier.end(reason, reconnecting: reconnecting)
    }

    private func run(_ command: ReaderGatewayV1.ReaderCommand) {
        let id = command.commandID
        switch command.command {
        case .collectPaymentMethod(let params)?:
            let automatic = options.tapAutomatically
            let tap = feed { $0.collectStarted(id: id, amount: params.amount, automatic: automatic) }
            if let tap { send(Self.collected(id: id, card: tap, reader: readerID)) } else { heartbeat() }
        case .cancelCollect?:
            let waiting = feed { $0.collectCancelled() }
            if let waiting { send(Self.result(waiting, ReaderGatewayV1.Status(.commandCanceled, "the collect was cancelled before a card was tapped"))) }
            if id != 0 { send(Self.result(id, .ok)) }
        case .confirmPaymentIntent(let params)?:
            var intent = ReaderGatewayV1.PaymentIntentResult()
            intent.paymentIntentID = params.paymentIntentID
            intent.status = "succeeded"
            intent.amountReceived = feed { $0.lastAmount }
            var result = Self.result(id, .ok)
            result.result = .paymentIntent(intent)
            send(result)
        case .setDisplay?, .clearDisplay?:
            send(Self.result(id, .ok))
        case .reboot?, .installUpdate?, .cancelUpdate?, nil:
            send(Self.result(id, ReaderGatewayV1.Status(.readerNotReady, "a Tap to Pay reader does not run this command")))
        }
    }

    private func heartbeat() {
        var heartbeat = ReaderGatewayV1.ReaderHeartbeat()
        heartbeat.activity = feed { $0.activity }
        carrier.send(.heartbeat(heartbeat))
    }

    private func send(_ result: ReaderGatewayV1.CommandResult) {
        carrier.send(.commandResult(result))
        heartbeat()
    }

    static func result(_ id: UInt64, _ status: ReaderGatewayV1.Status) -> ReaderGatewayV1.CommandResult {
        ReaderCommandResults.status(id, status)
    }

    static func collected(id: UInt64, card: Card, reader: String) -> ReaderGatewayV1.CommandResult {
        ReaderCommandResults.collected(id: id, card: card, idPrefix: "ttp", reader: reader, readMethod: "contactless_emv")
    }
}
