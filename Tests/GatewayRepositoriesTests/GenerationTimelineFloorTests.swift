import Foundation
import GatewayCore
import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import GatewayTestSupport
import Testing

/// Generations above every one an earlier PostgreSQL timeline handed out (migration 0020):
/// the floor of each timeline, numbering on timeline 1 as it always was, and a real
/// asynchronous failover whose promoted server never hands out a generation again.
@Suite("Ownership generations: the floor of the PostgreSQL timeline", .serialized, .timeLimit(.minutes(5)))
struct GenerationTimelineFloorTests {
    static let secondTimelineFloor = OwnershipGeneration(1 << 40)

    let reader = ReaderID("tmr_floor")
    let second = ReaderID("tmr_floor_second")
    let third = ReaderID("tmr_floor_third")
    let a = ReaderOwner(session: SessionID("ses_floor_a"), lane: LaneLabel("Lane A"))
    let b = ReaderOwner(session: SessionID("ses_floor_b"), lane: LaneLabel("Lane B"))
    let c = ReaderOwner(session: SessionID("ses_floor_c"), lane: LaneLabel("Lane C"))
    let d = ReaderOwner(session: SessionID("ses_floor_d"), lane: LaneLabel("Lane D"))

    @Test func eachTimelineHasItsFloorAndTimelineOneNumbersFromOne() async throws {
        try await withOwnershipDatabase { client in
            let row = try await client.query(
                """
                SELECT ownership_generation_floor(1) AS one, ownership_generation_floor(2) AS two,
                       ownership_generation_floor(3) AS three, ownership_generation_floor() AS current,
                       substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) AS timeline
                """
            )[0]
            #expect(try row.decode(Int64.self, "one") == 0)
            #expect(try row.decode(Int64.self, "two") == 1 << 40)
            #expect(try row.decode(Int64.self, "three") == 1 << 41)
            #expect(try row.decode(String.self, "timeline") == "00000001")
            #expect(try row.decode(Int64.self, "current") == 0)

            // On timeline 1 every change moves a generation by one, from 1.
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a"])
            #expect(try await fixtures.ownedReader(reader, owner: a, node: "node-a", store: store) == OwnershipGeneration(1))
            try await fixtures.openSession(b.session, lane: b.lane)
            #expect(try await grantedGeneration(store.claim(reader, ConnectRequest(session: b.session, lane: b.lane))) == OwnershipGeneration(2))
            let released = try await store.disconnect(reader: reader, session: b.session, generation: OwnershipGeneration(2))
            #expect(released == .released(b, generation: OwnershipGeneration(3), actions: released.actions))
            #expect(try await fixtures.history(reader).map(\.generation) == [1, 2, 3])
        }
    }

    /// The standby stops streaming, so the primary's next claims are certainly lost; the
    /// primary is killed and the standby promoted (timeline 2). The promoted server still shows
    /// the reader at the generation before them, yet a claim there from another session (the
    /// lone claim, the batch of claims, an admin release) lands above every generation the old
    /// primary handed out: nobody is handed a generation twice, even before any replica has
    /// compared its rows.
    @Test func aPromotedServerHandsOutGenerationsAboveEveryOneItsPredecessorDid() async throws {
        try await ReplicatedPostgres.withPair(replication: .asynchronous) { try await failOver($0) }
    }

    private func failOver(_ pair: ReplicatedPostgres) async throws {
        let primary = try Self.client(pair, slot: 0)
        try await Migrator(client: primary, logger: Logger(component: "migrations")).migrate()
        let fixtures = OwnershipFixtures(client: primary)
        let (store, _) = try await fixtures.seedCluster(nodes: ["node-a"])
        #expect(try await fixtures.ownedReader(reader, owner: a, node: "node-a", store: store) == OwnershipGeneration(1))
        for spare in [second, third] {
            try await fixtures.registerReader(spare)
            _ = try await store.readerAttached(spare, node: "node-a")
        }
        for owner in [b, c, d] { try await fixtures.openSession(owner.session, lane: owner.lane) }
        let aOnThird = try await grantedGeneration(store.claim(third, ConnectRequest(session: a.session, lane: a.lane)))
        #expect(aOnThird == OwnershipGeneration(1))

        // From here on the primary commits alone: the failover loses all of it.
        try await pair.stopStandbyStreaming()
        var handedOut: [ReaderID: [OwnershipGeneration]] = [:]
        for owner in [b, c] {
            handedOut[reader, default: []].append(try await grantedGeneration(store.claim(reader, ConnectRequest(session: owner.session, lane: owner.lane))))
        }
        handedOut[second, default: []].append(try await grantedGeneration(store.claim(second, ConnectRequest(session: b.session, lane: b.lane))))
        handedOut[third, default: []].append(try await grantedGeneration(store.claim(third, ConnectRequest(session: c.session, lane: c.lane))))
        #expect(handedOut == [reader: [OwnershipGeneration(2), OwnershipGeneration(3)], second: [OwnershipGeneration(1)], third: [OwnershipGeneration(2)]])
        await primary.shutdown()

        await pair.killPrimary()
        try await pair.promoteStandby()
        let promoted = try Self.client(pair, slot: 1)
        let promotedStore = OwnershipStore(client: promoted)
        let promotedFixtures = OwnershipFixtures(client: promoted)

        // The promoted server went back in time, on a new timeline whose floor is 2^40.
        let floor = try await promoted.query(
            "SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) AS timeline, ownership_generation_floor() AS floor"
        )[0]
        #expect(try floor.decode(String.self, "timeline") == "00000002")
        #expect(try floor.decode(Int64.self, "floor") == Self.secondTimelineFloor.rawValue)
        #expect(try await promotedFixtures.history(reader).map(\.generation) == [1])
        #expect(try await promotedFixtures.history(second).isEmpty)

        // D connects on the promoted server: the lone claim (`ownership_claim`).
        let taken = try await promotedStore.claim(reader, ConnectRequest(session: d.session, lane: d.lane))
        #expect(taken == .granted(.replaced(a), generation: Self.secondTimelineFloor, actions: taken.actions))
        // The batch of claims (`ownership_claim_set`).
        let batch = try await OwnershipClaimBatcher.decideTogether(
            promotedStore, [.init(reader: second, request: ConnectRequest(session: d.session, lane: d.lane), account: nil)]
        )
        #expect(try batch.first?.get().result == .granted(.connected, generation: Self.secondTimelineFloor, actions: []))
        // An admin release (every statement that moves a generation takes the floor).
        let released = try await promotedStore.adminRelease(reader: third)
        #expect(released == .released(a, generation: Self.secondTimelineFloor, actions: released.actions))

        for (id, generations) in handedOut {
            let stored = try await promotedFixtures.history(id).map { OwnershipGeneration($0.generation) }
            let last = try #require(stored.last)
            #expect(generations.allSatisfy { $0 < last }, "\(id): the promoted server is at \(last), not above \(generations) (handed out by the old primary)")
            #expect(stored == stored.sorted() && Set(stored).count == stored.count, "\(id): history generations \(stored) repeat or fall")
        }
        // From the floor on, one by one again.
        let next = try await promotedStore.claim(reader, ConnectRequest(session: b.session, lane: b.lane))
        #expect(try grantedGeneration(next) == Self.secondTimelineFloor.next)
        await promoted.shutdown()
    }

    private static func client(_ pair: ReplicatedPostgres, slot: Int) throws -> PostgresClient {
        var configuration = PostgresConfiguration(connectionString: pair.connectionString(slot: slot))
        configuration.maximumConnections = 2
        return try PostgresClient(configuration: configuration, logger: Logger(component: "store"))
    }
}

/// The generation a granted connect was handed; records an issue (and returns `.initial`) for a refusal.
private func grantedGeneration(_ result: ConnectResult) throws -> OwnershipGeneration {
    guard case .granted(_, let generation, _) = result else {
        Issue.record("the connect was refused: \(result)")
        return .initial
    }
    return generation
}

extension ConnectResult {
    fileprivate var actions: [OwnershipAction] {
        switch self {
        case .granted(_, _, let actions), .refused(_, let actions): actions
        }
    }
}

extension ReleaseResult {
    fileprivate var actions: [OwnershipAction] {
        if case .released(_, _, let actions) = self { return actions }
        return []
    }
}
