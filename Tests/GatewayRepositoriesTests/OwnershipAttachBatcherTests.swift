import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import GatewayTestKit
import Testing

@Suite("Ownership store: attach batches")
struct OwnershipAttachBatcherTests {
    typealias Link = OwnershipFixtures.StoredLink
    static let owner = ReaderOwner(session: SessionID("sess_storm"), lane: LaneLabel("Till 1"))

    @Test("attaches arriving together decide as single attaches: next epoch, owner kept, first attach and unknown readers too")
    func attachesArrivingTogether() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a", "node-b"])
            let owned = ReaderID("tmr_storm_owned")
            let generation = try await fixtures.ownedReader(owned, owner: Self.owner, node: "node-a", store: store)
            let historyBefore = try await fixtures.history(owned)
            // Linked on node-a (which dies), never attached (no ownership row yet), not registered.
            let linked = (0..<30).map { ReaderID("tmr_storm_\($0)") }
            let fresh = (0..<10).map { ReaderID("tmr_storm_fresh_\($0)") }
            let unknown = ReaderID("tmr_storm_nobody")
            for reader in linked {
                try await fixtures.registerReader(reader)
                let attached = try await store.readerAttached(reader, node: "node-a")
                #expect(attached.0 == .updated && attached.1 == LinkEpoch(1))
            }
            for reader in fresh { try await fixtures.registerReader(reader) }

            // One batch at a time, so the attaches that arrive meanwhile leave together.
            let batcher = OwnershipAttachBatcher(store: store, maximumBatch: 16, maximumInFlight: 1)
            let everyone = [owned] + linked + fresh + [unknown]
            let outcomes = await withTaskGroup(of: (ReaderID, Result<(LinkEventResult, LinkEpoch?), StoreError>).self) { group in
                for reader in everyone {
                    group.addTask {
                        do throws(StoreError) {
                            let attached = try await batcher.readerAttached(reader, node: "node-b")
                            return (reader, .success((attached.result, attached.epoch)))
                        } catch {
                            return (reader, .failure(error))
                        }
                    }
                }
                var all: [ReaderID: Result<(LinkEventResult, LinkEpoch?), StoreError>] = [:]
                for await (reader, result) in group { all[reader] = result }
                return all
            }

            for reader in [owned] + linked {
                let outcome = try outcomes[reader]?.get()
                #expect(outcome?.0 == .updated && outcome?.1 == LinkEpoch(2), "\(reader): \(String(describing: outcome))")
                #expect(try await fixtures.link(reader) == Link(online: true, epoch: 2, node: "node-b", detached: false, status: "online"))
            }
            for reader in fresh {
                let outcome = try outcomes[reader]?.get()
                #expect(outcome?.0 == .updated && outcome?.1 == LinkEpoch(1), "\(reader): \(String(describing: outcome))")
                #expect(try await fixtures.link(reader) == Link(online: true, epoch: 1, node: "node-b", detached: false, status: "online"))
            }
            #expect(try outcomes[unknown]?.get().0 == .unknownReader)
            // The owner keeps its reader at its generation; a re-attach writes no history.
            let record = try #require(try await store.ownership(of: owned))
            #expect(record.owner == Self.owner && record.generation == generation)
            #expect(try await fixtures.history(owned) == historyBefore)
        }
    }

    @Test("a re-attach records its hello's battery level in the same statement; a first attach leaves it to the caller")
    func batteryLevelsGoWithTheAttach() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a", "node-b"])
            // Linked on node-a before (re-attaching on node-b), and registered but never attached.
            let linked = (0..<12).map { ReaderID("tmr_battery_\($0)") }
            let fresh = ReaderID("tmr_battery_fresh")
            for reader in linked {
                try await fixtures.registerReader(reader)
                _ = try await store.readerAttached(reader, node: "node-a")
            }
            try await fixtures.registerReader(fresh)
            // One reader already has a stored level (overwritten); one reports none (recorded as none).
            try await client.execute(
                "INSERT INTO reader_update_status (reader_id, battery_level, battery_reported_at) VALUES ($1, 0.2, now() - interval '1 hour')",
                [PostgresValue(linked[0].rawValue)]
            )
            func level(_ index: Int) -> Float? { index == 1 ? nil : Float(index) / 20 }
            let batcher = OwnershipAttachBatcher(store: store, maximumBatch: 16, maximumInFlight: 1)
            let recorded = await withTaskGroup(of: (ReaderID, Bool?).self) { group in
                for (index, reader) in linked.enumerated() {
                    group.addTask {
                        let battery = OwnershipAttachBatcher.BatteryReport(level: level(index))
                        return (reader, try? await batcher.readerAttached(reader, node: "node-b", battery: battery).batteryRecorded)
                    }
                }
                group.addTask { (fresh, try? await batcher.readerAttached(fresh, node: "node-b", battery: .init(level: 0.9)).batteryRecorded) }
                var all: [ReaderID: Bool?] = [:]
                for await (reader, flag) in group { all[reader] = flag }
                return all
            }
            for (index, reader) in linked.enumerated() {
                #expect(recorded[reader] == .some(true), "\(reader): \(String(describing: recorded[reader]))")
                let rows = try await client.query(
                    "SELECT battery_level::float8 AS level, battery_reported_at > now() - interval '1 minute' AS fresh FROM reader_update_status WHERE reader_id = $1",
                    [PostgresValue(reader.rawValue)]
                )
                let row = try #require(rows.first, "\(reader) has no reader_update_status row")
                let stored = try row.decode(Double?.self, "level").map(Float.init)
                #expect(stored == level(index), "\(reader): stored \(String(describing: stored)), reported \(String(describing: level(index)))")
                #expect(try row.decode(Bool.self, "fresh"))
                #expect(try await fixtures.link(reader) == Link(online: true, epoch: 2, node: "node-b", detached: false, status: "online"))
            }
            // The first attach went through the single path (no ownership row yet): not recorded there.
            #expect(recorded[fresh] == .some(false))
            #expect(try await client.query("SELECT 1 FROM reader_update_status WHERE reader_id = $1", [PostgresValue(fresh.rawValue)]).isEmpty)
        }
    }

    @Test("a reader's second link attaching while its first link's attach waits gets the next epoch, in a later statement, and its battery level is the one kept")
    func aReadersTwoLinksWaitingTogetherGetEpochsOfTheirOwn() async throws {
        try await withOwnershipDatabase(pipelineDepth: 1) { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a", "node-b"])
            let twice = ReaderID("tmr_twice")
            let ahead = ReaderID("tmr_ahead")
            for reader in [twice, ahead] {
                try await fixtures.registerReader(reader)
                _ = try await store.readerAttached(reader, node: "node-a")
            }
            let batcher = OwnershipAttachBatcher(store: store, maximumBatch: 16, maximumInFlight: 1)
            func attach(_ reader: ReaderID, level: Float) -> Task<OwnershipAttachBatcher.Attached, any Error> {
                Task { try await batcher.readerAttached(reader, node: "node-b", battery: .init(level: level)) }
            }
            let (first, second, held) = try await client.withTransaction { transaction in
                // node-b's row locked: the first batch (another reader's attach) waits on it
                // holding the only slot, and the two links of `twice` queue behind it in order.
                try await transaction.execute("SELECT 1 FROM gateway_nodes WHERE node_id = 'node-b' FOR UPDATE")
                let held = attach(ahead, level: 0.5)
                let blocked = await eventually {
                    let rows = try? await client.query(
                        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM gateway_nodes n WHERE n.node_id = $2%'"
                    )
                    return rows?.isEmpty == false
                }
                try #require(blocked, "the first attach batch never waited on the node's row")
                let first = attach(twice, level: 0.1)
                try #require(await eventually { batcher.waiting == 1 }, "the first link's attach did not queue")
                let second = attach(twice, level: 0.2)
                try #require(await eventually { batcher.waiting == 2 }, "the second link's attach did not queue")
                return (first, second, held)
            }
            #expect(try await held.value.epoch == LinkEpoch(2))
            let firstLink = try await first.value
            let secondLink = try await second.value
            #expect(firstLink.result == .updated && firstLink.epoch == LinkEpoch(2), "\(firstLink)")
            #expect(secondLink.result == .updated && secondLink.epoch == LinkEpoch(3), "\(secondLink)")
            #expect(firstLink.batteryRecorded && secondLink.batteryRecorded)
            #expect(try await fixtures.link(twice) == Link(online: true, epoch: 3, node: "node-b", detached: false, status: "online"))
            let rows = try await client.query("SELECT battery_level::float8 AS level FROM reader_update_status WHERE reader_id = $1", [PostgresValue(twice.rawValue)])
            #expect(try rows.first?.decode(Double?.self, "level").map(Float.init) == 0.2)
        }
    }

    @Test("attaches on a node that is no longer registered are refused one by one and change nothing")
    func attachesOnAReapedNode() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, cluster) = try await fixtures.seedCluster(nodes: ["node-a", "node-b"])
            let readers = (0..<6).map { ReaderID("tmr_reaped_\($0)") }
            for reader in readers {
                try await fixtures.registerReader(reader)
                _ = try await store.readerAttached(reader, node: "node-a")
            }
            try await cluster.deregister(node: "node-b")
            let batcher = OwnershipAttachBatcher(store: store, maximumBatch: 16, maximumInFlight: 1)
            let refusals = await withTaskGroup(of: StoreError.Code?.self) { group in
                for reader in readers {
                    group.addTask {
                        do throws(StoreError) {
                            _ = try await batcher.readerAttached(reader, node: "node-b")
                            return nil
                        } catch {
                            return error.code
                        }
                    }
                }
                var codes: [StoreError.Code?] = []
                for await code in group { codes.append(code) }
                return codes
            }
            #expect(refusals.count == readers.count && refusals.allSatisfy { $0 == .nodeNotRegistered }, "\(refusals)")
            for reader in readers {
                #expect(try await fixtures.link(reader) == Link(online: true, epoch: 1, node: "node-a", detached: false, status: "online"))
            }
        }
    }
}
