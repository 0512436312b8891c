import GatewayDomain
@testable import GatewayRegistry
import GatewayWire

/// A registry and the plain values the tests drive it with: no clock but `start`, no I/O.
struct RegistryFixture {
    var registry = ReaderRegistry()
    /// The tests' "now"; later instants are offsets from it.
    let start = ContinuousClock.now
    let reader = ReaderID("tmr_1")
    let lease = Duration.seconds(30)

    static func session(_ name: String) -> SessionID { SessionID("ses_\(name)") }
    static func token(_ name: String) -> String { "tok_\(name)" }

    /// Opens session `name` (lane "Lane <name>", device "pos-<name>") on `connection`.
    @discardableResult
    mutating func open(_ name: String, connection: UInt64 = 1) -> SessionID {
        let id = Self.session(name)
        registry.sessionOpened(
            RegistrySession(
                id: id, token: Self.token(name), accountID: "acct_1", locationScope: nil, posDeviceID: "pos-\(name)",
                lane: LaneLabel("Lane \(name)"), discovery: DiscoveryStateMachine(burst: 2, perSecond: 1), connection: connection, nowUnixMs: 1_000
            )
        )
        return id
    }

    /// Session `name` adopted from its row at `epoch` on `connection`, owning `reader` at
    /// `generation` when given, its latest answered discovery `discovered` (number and readers).
    @discardableResult
    mutating func adopt(
        _ name: String, epoch: Int64, connection: UInt64, nowUnixMs: Int64 = 4_000, reader: ReaderID? = nil, generation: Int64 = 0,
        discovered: (UInt64, Set<String>)? = nil
    ) -> ReaderRegistry.Adoption {
        registry.sessionAdopted(
            RegistrySession(
                id: Self.session(name), token: Self.token(name), accountID: "acct_1", locationScope: nil, posDeviceID: "pos-\(name)",
                lane: LaneLabel("Lane \(name)"),
                discovery: DiscoveryStateMachine(resumingAfter: discovered.map { DiscoveryStateMachine.DiscoveryID($0.0) }, burst: 2, perSecond: 1),
                discovered: discovered?.1 ?? [], connection: connection, nowUnixMs: nowUnixMs,
                reader: reader, generation: OwnershipGeneration(generation), epoch: epoch
            )
        )
    }

    /// Attaches a link of `reader` recorded at `epoch` and returns its id.
    @discardableResult
    mutating func attach(_ reader: ReaderID? = nil, epoch: Int64 = 1) -> LinkID {
        let link = registry.linkStarted()
        var described = ReaderGatewayV1.Reader()
        described.id = (reader ?? self.reader).rawValue
        described.label = "Front desk"
        let actions = registry.linkAttached(
            reader ?? self.reader, link: link, epoch: LinkEpoch(epoch), described: described,
            status: LinkStatus(ipAddress: "10.0.0.9", softwareVersion: "2.1"), now: start
        )
        precondition(actions.isEmpty, "the fixture attaches a reader with no link")
        return link
    }

    /// Session `name` takes the reader at `generation`, as the store decided (connected, or
    /// replacing whom `actions` displace).
    @discardableResult
    mutating func claim(_ name: String, generation: Int64, actions: [OwnershipAction] = []) -> [RegistryAction] {
        registry.readerClaimed(
            reader, by: Self.session(name), generation: OwnershipGeneration(generation), lane: LaneLabel("Lane \(name)"),
            posDeviceID: "pos-\(name)", actions: actions, nowUnixMs: 2_000
        ) ?? []
    }

    /// Session `name` subscribes to its events; the new stream's id.
    @discardableResult
    mutating func subscribe(_ name: String, connection: UInt64 = 1) -> ReaderRegistry.Subscription {
        registry.sessionSubscribed(Self.token(name), connection: connection)!
    }

    /// Session `name` relays a display command (loop path) at `start + after`.
    mutating func relay(_ name: String, connection: UInt64 = 1, reboot: Bool = false, after: Duration = .zero) -> ReaderRegistry.RelayDecision {
        registry.commandRequested(
            Self.token(name), connection: connection, reboot: reboot, deadline: start + after + .seconds(10),
            now: start + after, nowUnixMs: 3_000, lease: lease
        )
    }

    /// Session `name` relays CancelCollectPaymentMethod (loop path).
    mutating func cancelCollect(_ name: String, connection: UInt64 = 1) -> ReaderRegistry.RelayDecision {
        registry.commandRequested(
            Self.token(name), connection: connection, reboot: false, cancelsCollect: true, deadline: start + .seconds(10),
            now: start, nowUnixMs: 3_000, lease: lease
        )
    }

    func session(_ name: String) -> RegistrySession? { registry.session(id: Self.session(name)) }
}

extension RegistryAction {
    /// The notice this action sends, if it sends one.
    var notice: SessionNotice? {
        if case .sendEvent(let notice, _) = self { return notice }
        return nil
    }

    /// The session event this action sends, if it sends one, as its wire message.
    var event: ReaderGatewayV1.SessionEvent? {
        if case .sendEvent(let notice, _) = self { return notice.message }
        return nil
    }

    /// The disconnect event this action sends, if it sends one.
    var disconnected: ReaderGatewayV1.ReaderDisconnected? {
        if case .disconnected(let event)? = self.event?.event { return event }
        return nil
    }
}
