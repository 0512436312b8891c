import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import Testing

/// The "Multiple connections" table, end to end through the store on PostgreSQL.
@Suite("Ownership store: the failIfInUse table")
struct OwnershipStoreSeedTableTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var midTransaction: Bool
        var failIfInUse: Bool
        var testDescription: String {
            "\(midTransaction ? "mid-transaction" : "idle"), failIfInUse \(failIfInUse)"
        }
    }

    static let rows = [false, true].flatMap { mid in [false, true].map { Row(midTransaction: mid, failIfInUse: $0) } }

    @Test("each cell", arguments: rows)
    func cell(_ row: Row) async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let reader = ReaderID("tmr_seed")
            let a = ReaderOwner(session: SessionID("sess_a"), lane: LaneLabel("Till 1"))
            let b = ReaderOwner(session: SessionID("sess_b"), lane: LaneLabel("Till 2"))
            try await fixtures.registerReader(reader)
            try await fixtures.openSession(a.session, lane: a.lane)
            try await fixtures.openSession(b.session, lane: b.lane)
            _ = try await store.readerAttached(reader)
            guard case .granted(.connected, let g1, []) = try await store.claim(reader, ConnectRequest(session: a.session, lane: a.lane)) else {
                Issue.record("A could not connect to a free reader")
                return
            }
            // A cart on the display never makes the reader in use.
            #expect(try await store.commandStarted(.setReaderDisplay, reader: reader, session: a.session, generation: g1) == .proceed)
            if row.midTransaction {
                #expect(try await store.commandStarted(.collectPaymentMethod, reader: reader, session: a.session, generation: g1) == .proceed)
            }

            let result = try await store.claim(reader, ConnectRequest(session: b.session, lane: b.lane, failIfInUse: row.failIfInUse))
            let record = try await store.ownership(of: reader)
            if row.midTransaction && row.failIfInUse {
                // The incoming connection fails; the existing one doesn't break; the command continues.
                #expect(result == .refused(.readerBusy, actions: []))
                #expect(record?.owner == a)
                #expect(record?.commandInProgress == CommandInProgress(command: .collectPaymentMethod, session: a.session))
                #expect(try await store.commandFinished(.collectPaymentMethod, reader: reader, session: a.session, generation: g1) == .finished)
                #expect(try await fixtures.history(reader).map(\.reason) == ["connected", "refused_busy"])
            } else {
                // The existing connection breaks, the new SDK connects, the old one's next command fails.
                var actions: [OwnershipAction] = []
                if row.midTransaction { actions.append(.cancelCommand(CommandInProgress(command: .collectPaymentMethod, session: a.session))) }
                actions += [
                    .notifyDisplaced(session: a.session, reason: .connectedToAnotherSession, takenBy: b.lane),
                    .failNextCommand(session: a.session, refusal: .connectedToAnotherSession),
                ]
                #expect(result == .granted(.replaced(a), generation: g1.next, actions: actions))
                #expect(record?.owner == b)
                #expect(record?.commandInProgress == nil)
                #expect(try await store.commandStarted(.collectPaymentMethod, reader: reader, session: a.session, generation: g1) == .refused(.connectedToAnotherSession))
                #expect(try await fixtures.history(reader).map(\.reason) == ["connected", "replaced"])
            }
        }
    }

    @Test("the owner reconnecting is not a takeover; stale, offline and unknown readers have their own errors")
    func ownReconnectAndErrors() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let reader = ReaderID("tmr_own")
            let a = ReaderOwner(session: SessionID("sess_a"), lane: LaneLabel("Till 1"))
            try await fixtures.registerReader(reader)
            try await fixtures.openSession(a.session, lane: a.lane)
            let request = ConnectRequest(session: a.session, lane: a.lane, failIfInUse: true)
            #expect(try await store.claim(reader, request) == .refused(.readerOffline, actions: []))
            #expect(try await store.claim(ReaderID("tmr_nobody"), request) == .refused(.unknownReader, actions: []))
            let (attached, epoch) = try await store.readerAttached(reader)
            #expect(attached == .updated && epoch == LinkEpoch(1))
            #expect(try await Self.registryStatus(client, reader) == "online")
            var stale = request
            stale.readerDiscovery = DiscoveryStateMachine.DiscoveryID(1)
            stale.latestDiscovery = DiscoveryStateMachine.DiscoveryID(2)
            #expect(try await store.claim(reader, stale) == .refused(.staleDiscovery, actions: []))
            guard case .granted(.connected, let g1, _) = try await store.claim(reader, request) else {
                Issue.record("A could not connect")
                return
            }
            #expect(try await store.commandStarted(.confirmPaymentIntent, reader: reader, session: a.session, generation: g1) == .proceed)
            #expect(try await store.claim(reader, request) == .granted(.alreadyOwner, generation: g1, actions: []))
            #expect(try await store.ownership(of: reader)?.commandInProgress?.command == .confirmPaymentIntent)
            #expect(try await fixtures.history(reader).map(\.reason) == ["connected"])

            // The reader's link drops: A loses it, the registry shows it offline.
            let lost = try await store.readerLost(reader, epoch: LinkEpoch(1))
            #expect(lost == .ownerLost(a, generation: g1.next, actions: [
                .cancelCommand(CommandInProgress(command: .confirmPaymentIntent, session: a.session)),
                .notifyDisplaced(session: a.session, reason: .readerOffline, takenBy: nil),
                .failNextCommand(session: a.session, refusal: .readerOffline),
            ]))
            #expect(try await Self.registryStatus(client, reader) == "offline")
            #expect(try await store.claim(reader, request) == .refused(.readerOffline, actions: []))
            #expect(try await fixtures.history(reader).map(\.reason) == ["connected", "reader_lost"])
        }
    }

    static func registryStatus(_ client: PostgresClient, _ reader: ReaderID) async throws -> String? {
        try await client.query("SELECT status FROM readers WHERE id = $1", [PostgresValue(reader.rawValue)]).first?.decode(String.self, "status")
    }
}
