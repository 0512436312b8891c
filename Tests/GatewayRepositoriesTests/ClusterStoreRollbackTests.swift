import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import Testing

/// The repair of a reader's row that went back in time (an asynchronous standby promoted
/// without the old primary's last transactions), on a real PostgreSQL: the row is rewound by
/// hand to what the promoted server would show.
@Suite("Cluster store: repairing a row the store lost changes of")
struct ClusterStoreRollbackTests {
    let reader = ReaderID("tmr_rollback")
    let a = ReaderOwner(session: SessionID("ses_rb_a"), lane: LaneLabel("Lane A"))
    let b = ReaderOwner(session: SessionID("ses_rb_b"), lane: LaneLabel("Lane B"))

    @Test func aRowBehindTheFloorIsReleasedAboveItAndRecorded() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, cluster) = try await fixtures.seedCluster(nodes: ["node-a"])
            try await fixtures.ownedReader(reader, owner: a, node: "node-a", store: store)
            try await fixtures.openSession(b.session, lane: b.lane)
            // This replica granted B generation 3; the store shows A at 1.
            let repaired = try #require(
                try await cluster.repairRollback(reader: reader, floor: OwnershipGeneration(3), floorHolder: b.session, link: nil, node: "node-a")
            )
            #expect(repaired == RolledBackRow(storeGeneration: OwnershipGeneration(1), generation: OwnershipGeneration(4)))
            let row = try #require(try await cluster.ownershipSnapshot([reader]).first)
            #expect(row.session == nil && row.generation == OwnershipGeneration(4) && row.online)
            let last = try #require(try await fixtures.history(reader).last)
            #expect(last.reason == "store_rolled_back" && last.generation == 4 && last.from == a.session.rawValue)
            // The next connect hands out a generation nobody held.
            let next = try await store.claim(reader, ConnectRequest(session: b.session, lane: b.lane))
            guard case .granted(_, let generation, _) = next else {
                Issue.record("the connect after the repair was refused: \(next)")
                return
            }
            #expect(generation == OwnershipGeneration(5))
            // The session the row named hears why from the history.
            let displacement = try await SessionStore(client: client).displacement(of: a.session.rawValue, from: reader.rawValue, after: 1)
            #expect(displacement?.reason == .storeRolledBack)
        }
    }

    @Test func aRowAtTheFloorOrPastItIsLeftAlone() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, cluster) = try await fixtures.seedCluster(nodes: ["node-a"])
            try await fixtures.ownedReader(reader, owner: a, node: "node-a", store: store)
            // What this replica knows is what the row shows (A at 1), or older (a claim committed
            // after the replica read the row, or another replica repaired first).
            #expect(try await cluster.repairRollback(reader: reader, floor: OwnershipGeneration(1), floorHolder: a.session, link: nil, node: "node-a") == nil)
            #expect(try await cluster.repairRollback(reader: reader, floor: OwnershipGeneration(1), floorHolder: nil, link: LinkEpoch(1), node: "node-a") == nil)
            #expect(try await cluster.repairRollback(reader: reader, floor: .initial, floorHolder: nil, link: nil, node: "node-a") == nil)
            let row = try #require(try await cluster.ownershipSnapshot([reader]).first)
            #expect(row.session == a.session && row.generation == OwnershipGeneration(1))
        }
    }

    @Test func theSameGenerationUnderAnotherOwnerIsRepaired() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, cluster) = try await fixtures.seedCluster(nodes: ["node-a"])
            try await fixtures.ownedReader(reader, owner: a, node: "node-a", store: store)
            try await fixtures.openSession(b.session, lane: b.lane)
            // B was granted 1 before the failover; the promoted server handed 1 to A.
            let repaired = try await cluster.repairRollback(reader: reader, floor: OwnershipGeneration(1), floorHolder: b.session, link: nil, node: "node-a")
            #expect(repaired?.generation == OwnershipGeneration(2))
        }
    }

    @Test func aLinkTheRowLostIsWrittenBack() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, cluster) = try await fixtures.seedCluster(nodes: ["node-a", "node-b"])
            try await fixtures.ownedReader(reader, owner: a, node: "node-a", store: store)
            // The reader re-attached on node-b at epoch 3; the store still shows epoch 1 on node-a.
            let repaired = try await cluster.repairRollback(reader: reader, floor: OwnershipGeneration(1), floorHolder: nil, link: LinkEpoch(3), node: "node-b")
            #expect(repaired?.generation == OwnershipGeneration(2))
            let link = try await fixtures.link(reader)
            #expect(link == OwnershipFixtures.StoredLink(online: true, epoch: 3, node: "node-b", detached: false, status: "online"))
        }
    }
}
