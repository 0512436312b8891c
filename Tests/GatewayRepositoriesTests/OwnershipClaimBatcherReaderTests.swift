import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import Testing

/// The connect path's batches: each claim's decision with its reader's row, as
/// `OwnershipStore.claim(_:_:readingRecordOf:)` gives them one at a time. Every batched reader
/// has a twin in the same state that single claims decide, and the two must agree.
@Suite("Ownership store: claim batches with the reader's row")
struct OwnershipClaimBatcherReaderTests {
    typealias Decision = (result: ConnectResult, record: ReaderRecord?)

    static let laneA = ReaderOwner(session: SessionID("sess_a"), lane: LaneLabel("Till 1"))
    static let laneB = ReaderOwner(session: SessionID("sess_b"), lane: LaneLabel("Till 2"))
    static let laneC = ReaderOwner(session: SessionID("sess_c"), lane: LaneLabel("Till 3"))

    /// Seeds the account, three sessions and `readers` attached readers with their twins
    /// (`tmr_batched_N` and `tmr_single_N`).
    private static func seed(_ client: PostgresClient, readers: Int) async throws -> (batched: [ReaderID], single: [ReaderID]) {
        let fixtures = OwnershipFixtures(client: client)
        try await fixtures.seedAccount()
        let store = OwnershipStore(client: client)
        for owner in [laneA, laneB, laneC] { try await fixtures.openSession(owner.session, lane: owner.lane) }
        let batched = (0..<readers).map { ReaderID("tmr_batched_\($0)") }
        let single = (0..<readers).map { ReaderID("tmr_single_\($0)") }
        for reader in batched + single {
            try await fixtures.registerReader(reader)
            _ = try await store.readerAttached(reader)
        }
        return (batched, single)
    }

    /// Claims every reader at once through `batcher` (their decisions in reader order).
    private static func claimTogether(
        _ batcher: OwnershipClaimBatcher, _ readers: [ReaderID], _ request: ConnectRequest, account: String
    ) async -> [Result<Decision, StoreError>] {
        await withTaskGroup(of: (Int, Result<Decision, StoreError>).self) { group in
            for (index, reader) in readers.enumerated() {
                group.addTask {
                    do throws(StoreError) {
                        return (index, .success(try await batcher.claim(reader, request, readingRecordOf: account)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var decisions = [Result<Decision, StoreError>?](repeating: nil, count: readers.count)
            for await (index, decision) in group { decisions[index] = decision }
            return decisions.map { $0! }
        }
    }

    @Test("concurrent connects get each claim's decision and reader row as single claims do; another account's reader gives no row")
    func concurrentClaimsMatchSingleClaims() async throws {
        try await withOwnershipDatabase { client in
            let (batched, single) = try await Self.seed(client, readers: 12)
            let store = OwnershipStore(client: client)
            let readerStore = ReaderStore(client: client)
            // One batch at a time, so claims arriving together leave together.
            let batcher = OwnershipClaimBatcher(store: store, maximumBatch: 32, maximumInFlight: 1)
            let steps: [(ReaderOwner, String, ConnectGrant)] = [
                (Self.laneA, OwnershipFixtures.account, .connected),
                (Self.laneB, OwnershipFixtures.account, .replaced(Self.laneA)),
                // The same session again, asking for the row as another account: no row.
                (Self.laneB, "acct_other", .alreadyOwner),
            ]
            for (owner, account, grant) in steps {
                let request = ConnectRequest(session: owner.session, lane: owner.lane)
                let together = await Self.claimTogether(batcher, batched, request, account: account)
                for (index, reader) in batched.enumerated() {
                    let alone = try await store.claim(single[index], request, readingRecordOf: account)
                    let decision = try together[index].get()
                    #expect(decision.result == alone.result, "reader \(reader.rawValue)")
                    guard case .granted(grant, _, _) = decision.result else {
                        Issue.record("expected \(grant) for \(reader.rawValue), got \(decision.result)")
                        continue
                    }
                    #expect(decision.record == (try await readerStore.reader(reader.rawValue, account: account)))
                    #expect(alone.record == (try await readerStore.reader(single[index].rawValue, account: account)))
                    #expect((decision.record == nil) == (account != OwnershipFixtures.account))
                    #expect(try await store.ownership(of: reader)?.owner == owner)
                }
            }
        }
    }

    /// A reader's ownership history as compared between twins: from, to, generation, reason.
    private static func history(_ fixtures: OwnershipFixtures, _ reader: ReaderID) async throws -> [[String?]] {
        try await fixtures.history(reader).map { [$0.from, $0.to, String($0.generation), $0.reason] }
    }

    /// Sends `claims` (reader, owner, failIfInUse) as one batch on the batched readers and one by
    /// one, in the same order, on their twins; expects the same decisions, rows and history.
    private static func expectBatchMatchesSingles(
        _ client: PostgresClient, _ claims: [(Int, ReaderOwner, Bool)], batched: [ReaderID], single: [ReaderID]
    ) async throws -> [Decision] {
        let store = OwnershipStore(client: client)
        let fixtures = OwnershipFixtures(client: client)
        let readerStore = ReaderStore(client: client)
        let batch = claims.map { index, owner, failIfInUse in
            OwnershipClaimBatcher.Claim(
                reader: batched[index], request: ConnectRequest(session: owner.session, lane: owner.lane, failIfInUse: failIfInUse),
                account: OwnershipFixtures.account
            )
        }
        let together = try await OwnershipClaimBatcher.decide(store, batch).map { try $0.get() }
        #expect(together.count == claims.count)
        for ((index, owner, failIfInUse), decision) in zip(claims, together) {
            let request = ConnectRequest(session: owner.session, lane: owner.lane, failIfInUse: failIfInUse)
            let alone = try await store.claim(single[index], request, readingRecordOf: OwnershipFixtures.account)
            #expect(decision.result == alone.result, "claim by \(owner.session.rawValue) on reader \(index)")
            #expect(decision.record == (try await readerStore.reader(batched[index].rawValue, account: OwnershipFixtures.account)))
        }
        for (reader, twin) in zip(batched, single) {
            #expect(try await store.ownership(of: reader)?.owner == (try await store.ownership(of: twin)?.owner))
            #expect(try await Self.history(fixtures, reader) == (try await Self.history(fixtures, twin)))
        }
        return together
    }

    @Test("two claims on one reader in one batch are decided as single claims in that order: the second replaces the first")
    func sameReaderTwiceReplaces() async throws {
        try await withOwnershipDatabase { client in
            let (batched, single) = try await Self.seed(client, readers: 3)
            // Other readers' claims around them: the batch decides in reader order, and on one
            // reader in the order given.
            let decisions = try await Self.expectBatchMatchesSingles(
                client, [(2, Self.laneA, false), (1, Self.laneA, false), (2, Self.laneB, false), (0, Self.laneC, false)],
                batched: batched, single: single
            )
            #expect(decisions[0].result == .granted(.connected, generation: OwnershipGeneration(1), actions: []))
            guard case .granted(.replaced(Self.laneA), let generation, let actions) = decisions[2].result else {
                Issue.record("the second claim on the reader must replace the first: \(decisions[2].result)")
                return
            }
            #expect(generation == OwnershipGeneration(2))
            #expect(actions.contains(.notifyDisplaced(session: Self.laneA.session, reason: .connectedToAnotherSession, takenBy: Self.laneB.lane)))
            #expect(try await OwnershipStore(client: client).ownership(of: batched[2])?.owner == Self.laneB)
        }
    }

    @Test("failIfInUse in a batch is refused while the reader is mid-transaction, and takes it once an earlier claim in the batch replaced the owner")
    func sameReaderTwiceFailIfInUse() async throws {
        try await withOwnershipDatabase { client in
            let (batched, single) = try await Self.seed(client, readers: 2)
            let fixtures = OwnershipFixtures(client: client)
            for reader in batched + single {
                try await fixtures.setOwnership(reader, online: true, epoch: 1, generation: 1, owner: Self.laneA, command: .collectPaymentMethod)
            }
            // Reader 0: failIfInUse first (refused: A is mid-transaction), then a default claim
            // (replaces A and cancels its command). Reader 1: the other order, so the
            // failIfInUse claim comes after the command ended and replaces.
            let decisions = try await Self.expectBatchMatchesSingles(
                client, [(0, Self.laneC, true), (1, Self.laneB, false), (0, Self.laneB, false), (1, Self.laneC, true)],
                batched: batched, single: single
            )
            guard case .refused(.readerBusy, _) = decisions[0].result else {
                Issue.record("failIfInUse must be refused while the reader is in a transaction: \(decisions[0].result)")
                return
            }
            guard case .granted(.replaced(Self.laneA), OwnershipGeneration(2), _) = decisions[2].result,
                  case .granted(.replaced(Self.laneA), OwnershipGeneration(2), _) = decisions[1].result,
                  case .granted(.replaced(Self.laneB), OwnershipGeneration(3), _) = decisions[3].result
            else {
                Issue.record("unexpected decisions: \(decisions.map(\.result))")
                return
            }
            let store = OwnershipStore(client: client)
            #expect(try await store.ownership(of: batched[0])?.owner == Self.laneB)
            #expect(try await store.ownership(of: batched[1])?.owner == Self.laneC)
        }
    }

    @Test("a bad claim in a connect batch fails alone; the others get their decision and reader row")
    func badClaimFailsAloneWithRows() async throws {
        try await withOwnershipDatabase { client in
            let (batched, _) = try await Self.seed(client, readers: 12)
            let store = OwnershipStore(client: client)
            let readerStore = ReaderStore(client: client)
            let ghost = ConnectRequest(session: SessionID("sess_ghost"), lane: LaneLabel("Till 9"))
            // Sent as one statement, the ghost's claim fails the batch (the ownership row's
            // foreign key refuses an unknown session) and nothing of it is kept.
            let batch = batched.enumerated().map { index, reader in
                OwnershipClaimBatcher.Claim(
                    reader: reader, request: index == 5 ? ghost : ConnectRequest(session: Self.laneA.session, lane: Self.laneA.lane),
                    account: OwnershipFixtures.account
                )
            }
            await #expect(throws: StoreError.self) { try await OwnershipClaimBatcher.decideTogether(store, batch) }
            for reader in batched { #expect(try await store.ownership(of: reader)?.owner == nil) }

            // Through the batcher, the batch is retried claim by claim: only the ghost's fails.
            let batcher = OwnershipClaimBatcher(store: store, maximumBatch: 32, maximumInFlight: 1)
            let outcomes = await withTaskGroup(of: (Int, Result<Decision, StoreError>).self) { group in
                for claim in batch.enumerated() {
                    group.addTask {
                        do throws(StoreError) {
                            return (claim.offset, .success(try await batcher.claim(claim.element.reader, claim.element.request, readingRecordOf: OwnershipFixtures.account)))
                        } catch {
                            return (claim.offset, .failure(error))
                        }
                    }
                }
                var outcomes: [(Int, Result<Decision, StoreError>)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.count == batched.count)
            for (index, outcome) in outcomes {
                let reader = batched[index]
                switch outcome {
                case .success(let decision):
                    #expect(index != 5, "the ghost session's claim must fail")
                    #expect(decision.result == .granted(.connected, generation: OwnershipGeneration(1), actions: []))
                    #expect(decision.record != nil)
                    #expect(decision.record == (try await readerStore.reader(reader.rawValue, account: OwnershipFixtures.account)))
                    #expect(try await store.ownership(of: reader)?.owner == Self.laneA)
                case .failure(let error):
                    #expect(index == 5, "only the ghost's claim fails: \(error)")
                    #expect(try await store.ownership(of: reader)?.owner == nil)
                }
            }
        }
    }

    @Test("refusals in a batch (unknown, never attached, offline, stale discovery) are decided as single claims decide them, beside a grant")
    func refusalsMatchSingleClaims() async throws {
        try await withOwnershipDatabase { client in
            let (batched, single) = try await Self.seed(client, readers: 3)
            let store = OwnershipStore(client: client)
            let fixtures = OwnershipFixtures(client: client)
            // Twins in each state: 0 offline (its link lost), 1 claimed with a stale discovery,
            // 2 granted; a registered reader that never attached; a reader nobody registered.
            for reader in [batched[0], single[0]] { _ = try await store.readerLost(reader, epoch: LinkEpoch(1)) }
            let cold = [ReaderID("tmr_batched_cold"), ReaderID("tmr_single_cold")]
            for reader in cold { try await fixtures.registerReader(reader) }
            let unknown = [ReaderID("tmr_batched_nobody"), ReaderID("tmr_single_nobody")]
            var stale = ConnectRequest(session: Self.laneA.session, lane: Self.laneA.lane)
            stale.readerDiscovery = DiscoveryStateMachine.DiscoveryID(1)
            stale.latestDiscovery = DiscoveryStateMachine.DiscoveryID(2)
            let plain = ConnectRequest(session: Self.laneA.session, lane: Self.laneA.lane)
            let claims: [(batched: ReaderID, single: ReaderID, request: ConnectRequest)] = [
                (batched[0], single[0], plain), (batched[1], single[1], stale), (batched[2], single[2], plain),
                (cold[0], cold[1], plain), (unknown[0], unknown[1], plain),
            ]
            let together = await OwnershipClaimBatcher.decide(
                store, claims.map { OwnershipClaimBatcher.Claim(reader: $0.batched, request: $0.request, account: OwnershipFixtures.account) }
            )
            var results: [ConnectResult] = []
            for (claim, decision) in zip(claims, together) {
                let alone = try await store.claim(claim.single, claim.request, readingRecordOf: OwnershipFixtures.account)
                let result = try decision.get()
                #expect(result.result == alone.result, "\(claim.batched.rawValue)")
                #expect((result.record == nil) == (alone.record == nil), "\(claim.batched.rawValue)")
                #expect(try await store.ownership(of: claim.batched)?.owner == (try await store.ownership(of: claim.single)?.owner))
                #expect(try await Self.history(fixtures, claim.batched) == (try await Self.history(fixtures, claim.single)))
                results.append(result.result)
            }
            #expect(results == [
                .refused(.readerOffline, actions: []), .refused(.staleDiscovery, actions: []),
                .granted(.connected, generation: OwnershipGeneration(1), actions: []),
                .refused(.readerOffline, actions: []), .refused(.unknownReader, actions: []),
            ])
        }
    }
}
