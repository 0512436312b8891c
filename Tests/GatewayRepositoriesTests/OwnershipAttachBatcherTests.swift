import GatewayDomain
import GatewayPostgres
import GatewayRepositories
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
                            return (reader, .success(try await batcher.readerAttached(reader, node: "node-b")))
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
