import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import Testing

/// The reader's link across replicas: attach on a node, re-attach elsewhere, lost, detached,
/// released after the offline bound.
@Suite("Ownership store: reader links across replicas")
struct OwnershipStoreLinkTests {
    /// The offline bound the releases use, and how long ago the expired readers were
    /// detached. A reader detached during the test must stay inside the bound however slowly
    /// a loaded machine runs the test's set-up, so the bound is a day.
    static let offlineBound = Duration.seconds(86_400)
    static let longDetached = 2 * 86_400

    typealias Link = OwnershipFixtures.StoredLink
    static let ownerA = ReaderOwner(session: SessionID("sess_A"), lane: LaneLabel("Till 1"))

    @Test("a re-attach on another node keeps the owner, its generation and history; the old link's loss is stale")
    func reattachKeepsTheOwner() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a", "node-b"])
            let reader = ReaderID("tmr_reattach")
            let generation = try await fixtures.ownedReader(reader, owner: Self.ownerA, node: "node-a", store: store)
            _ = try await store.commandStarted(.collectPaymentMethod, reader: reader, session: Self.ownerA.session, generation: generation)
            let historyBefore = try await fixtures.history(reader)

            let (attached, epoch) = try await store.readerAttached(reader, node: "node-b")
            #expect(attached == .updated && epoch == LinkEpoch(2))
            let record = try #require(try await store.ownership(of: reader))
            #expect(record.owner == Self.ownerA)
            #expect(record.generation == generation)
            #expect(record.commandInProgress == CommandInProgress(command: .collectPaymentMethod, session: Self.ownerA.session))
            #expect(try await fixtures.link(reader) == Link(online: true, epoch: 2, node: "node-b", detached: false, status: "online"))
            #expect(try await fixtures.history(reader) == historyBefore, "a re-attach writes no history")

            // The old link (epoch 1) ending on node-a changes nothing.
            #expect(try await store.readerLost(reader, epoch: LinkEpoch(1)) == .ignoredStale)
            #expect(try await store.readerDetached(reader, epoch: LinkEpoch(1)) == false)
            #expect(try await store.ownership(of: reader)?.owner == Self.ownerA)
            #expect(try await fixtures.link(reader) == Link(online: true, epoch: 2, node: "node-b", detached: false, status: "online"))
            // An attach naming an epoch that is not newer is stale.
            #expect(try await store.readerAttached(reader, node: "node-a", epoch: LinkEpoch(2)).0 == .ignoredStale)
            // The current link's loss ends the ownership, as before.
            let lost = try await store.readerLost(reader, epoch: LinkEpoch(2))
            guard case .ownerLost(let owner, let after, _) = lost else {
                Issue.record("expected the owner to lose the reader, got \(lost)")
                return
            }
            #expect(owner == Self.ownerA && after == generation.next)
            #expect(try await fixtures.link(reader) == Link(online: false, epoch: 2, node: nil, detached: false, status: "offline"))
        }
    }

    @Test("an attach on a node that is not registered (reaped) is refused and changes nothing")
    func attachOnUnregisteredNodeIsRefused() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let reader = ReaderID("tmr_fenced")
            try await fixtures.registerReader(reader)
            do throws(StoreError) {
                _ = try await store.readerAttached(reader, node: "node-gone")
                Issue.record("an attach on an unregistered node succeeded")
            } catch {
                #expect(error.code == .nodeNotRegistered)
                #expect(!error.isRetryable)
            }
            #expect(try await fixtures.link(reader) == Link(online: false, epoch: 0, node: nil, detached: false, status: "offline"))
            // Without a node (a gateway that does not register) the attach is recorded as before.
            let plain = try await store.readerAttached(reader)
            #expect(plain.0 == .updated && plain.1 == LinkEpoch(1))
            #expect(try await fixtures.link(reader) == Link(online: true, epoch: 1, node: nil, detached: false, status: "online"))
            #expect(try await store.readerAttached(ReaderID("tmr_nobody"), node: nil).0 == .unknownReader)
        }
    }

    @Test("a detached reader keeps its owner until the bound; a re-attach within it clears the detach")
    func reattachWithinTheBound() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, cluster) = try await fixtures.seedCluster(nodes: ["node-a", "node-b"])
            let reader = ReaderID("tmr_detached")
            let generation = try await fixtures.ownedReader(reader, owner: Self.ownerA, node: "node-a", store: store)

            #expect(try await store.readerDetached(reader, epoch: LinkEpoch(0)) == false, "fenced by the epoch")
            #expect(try await store.readerDetached(reader, epoch: LinkEpoch(1)))
            #expect(try await store.readerDetached(reader, epoch: LinkEpoch(1)) == false, "already detached")
            #expect(try await fixtures.link(reader) == Link(online: true, epoch: 1, node: nil, detached: true, status: "online"))
            #expect(try await store.ownership(of: reader)?.owner == Self.ownerA)
            #expect(try await cluster.readerHome(reader) == nil)
            // The draining replica's link then ends: that is not a loss.
            #expect(try await store.readerLost(reader, epoch: LinkEpoch(1)) == .ignoredStale)
            // Within the bound nothing is released.
            #expect(try await store.releaseDetachedReaders(offlineBound: Self.offlineBound).isEmpty)

            let back = try await store.readerAttached(reader, node: "node-b")
            #expect(back.0 == .updated && back.1 == LinkEpoch(2))
            #expect(try await fixtures.link(reader) == Link(online: true, epoch: 2, node: "node-b", detached: false, status: "online"))
            let record = try #require(try await store.ownership(of: reader))
            #expect(record.owner == Self.ownerA && record.generation == generation)
            // Even a bound of zero releases nothing now: the link is live again.
            #expect(try await store.releaseDetachedReaders(offlineBound: .zero).isEmpty)
            #expect(try await store.ownership(of: reader)?.owner == Self.ownerA)
        }
    }

    @Test("detached readers are released after the bound exactly once, with two replicas releasing at once", arguments: [1, 2, 3])
    func releaseExactlyOnce(round: Int) async throws {
        try await withOwnershipDatabase(secondClient: true) { client, replica in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let otherStore = OwnershipStore(client: replica)
            try await ClusterStore(client: client).register(node: "node-a", internalAddress: "127.0.0.1:7001")
            // 30 owned readers and 10 free ones, all detached long ago; 5 detached just now.
            var generations: [ReaderID: OwnershipGeneration] = [:]
            var expired: Set<ReaderID> = []
            for index in 0..<45 {
                let reader = ReaderID("tmr_\(round)_\(index)")
                if index < 30 || index >= 40 {
                    let owner = ReaderOwner(session: SessionID("sess_\(round)_\(index)"), lane: LaneLabel("Lane \(index)"))
                    generations[reader] = try await fixtures.ownedReader(reader, owner: owner, node: "node-a", store: store)
                } else {
                    try await fixtures.registerReader(reader)
                    _ = try await store.readerAttached(reader, node: "node-a")
                }
                #expect(try await store.readerDetached(reader, epoch: LinkEpoch(1)))
                if index < 40 {
                    try await fixtures.ageDetach(reader, seconds: Self.longDetached)
                    expired.insert(reader)
                }
            }
            // Two replicas drain the detached readers in small batches, concurrently.
            func drain(_ store: OwnershipStore) async throws -> [OwnershipStore.ExpiredOwnership] {
                var released: [OwnershipStore.ExpiredOwnership] = []
                for _ in 0..<100 {
                    let batch = try await store.releaseDetachedReaders(offlineBound: Self.offlineBound, limit: 3)
                    released += batch
                    if batch.isEmpty { break }
                }
                return released
            }
            async let first = drain(store)
            async let second = drain(otherStore)
            let all = try await first + second
            #expect(all.count == expired.count, "each reader released once")
            #expect(Set(all.map(\.reader)) == expired)
            for entry in all {
                let record = try #require(try await store.ownership(of: entry.reader))
                #expect(record.owner == nil && !record.online)
                #expect(try await fixtures.link(entry.reader) == Link(online: false, epoch: 1, node: nil, detached: false, status: "offline"))
                let history = try await fixtures.history(entry.reader)
                if let before = generations[entry.reader] {
                    guard case .released(let owner, let generation, let actions) = entry.result else {
                        Issue.record("\(entry.reader): expected a release, got \(entry.result)")
                        continue
                    }
                    #expect(owner.session.rawValue.hasPrefix("sess_\(round)_"))
                    #expect(generation == before.next && record.generation == before.next)
                    #expect(actions == [
                        .notifyDisplaced(session: owner.session, reason: .readerOffline, takenBy: nil),
                        .failNextCommand(session: owner.session, refusal: .readerOffline),
                    ])
                    #expect(history.filter { $0.reason == "reader_lost" }.map(\.generation) == [before.next.rawValue])
                } else {
                    #expect(entry.result == .unchanged(nil))
                    #expect(history.isEmpty)
                }
            }
            // The readers detached just now keep their owners.
            for index in 40..<45 {
                let reader = ReaderID("tmr_\(round)_\(index)")
                #expect(try await store.ownership(of: reader)?.owner != nil)
                #expect(try await fixtures.link(reader)?.detached == true)
            }
        }
    }
}
