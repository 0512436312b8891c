import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import Testing

@Suite("Ownership store: claim batches")
struct OwnershipClaimBatcherTests {
    @Test("array parameters keep quotes, backslashes, braces, commas, NULL and non-ASCII text")
    func arrayLiteral() async throws {
        try await withOwnershipDatabase { client in
            let elements: [String?] = [
                "plain", "with \"quotes\"", "back\\slash", "{braces}, comma", "", nil, "NULL", "Café \"Größe\" ☕️", "é\\\"", "👩‍👩‍👧 lane",
            ]
            let rows = try await client.query(
                "SELECT element FROM unnest($1::text[]) WITH ORDINALITY AS u (element, position) ORDER BY position",
                [PostgresValue(text: OwnershipClaimBatcher.arrayLiteral(elements))]
            )
            #expect(try rows.map { try $0.decode(String?.self, "element") } == elements)
        }
    }

    @Test("a batch's claims split into statements where no reader appears twice, each reader's claims in their order")
    func roundsKeepEachReaderApart() {
        let readers = ["tmr_1", "tmr_1", "tmr_2", "tmr_1", "tmr_3", "tmr_2"].map { ReaderID($0) }
        #expect(OwnershipClaimBatcher.rounds(readers) == [[0, 2, 4], [1, 5], [3]])
        #expect(OwnershipClaimBatcher.rounds([ReaderID("tmr_1"), ReaderID("tmr_2")]) == [[0, 1]])
        #expect(OwnershipClaimBatcher.rounds([]) == [])
    }

    @Test("one statement naming a reader twice is refused, and changes nothing")
    func readerTwiceInOneStatementIsRefused() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let reader = ReaderID("tmr_twice")
            try await fixtures.registerReader(reader)
            _ = try await store.readerAttached(reader)
            let owners = [("sess_a", "Till 1"), ("sess_b", "Till 2")].map { ReaderOwner(session: SessionID($0.0), lane: LaneLabel($0.1)) }
            for owner in owners { try await fixtures.openSession(owner.session, lane: owner.lane) }
            let claims = owners.map { owner in
                OwnershipClaimBatcher.Claim(reader: reader, request: ConnectRequest(session: owner.session, lane: owner.lane), account: nil)
            }
            do throws(StoreError) {
                _ = try await OwnershipClaimBatcher.decideTogether(store, claims)
                Issue.record("a statement naming a reader twice must be refused")
            } catch {
                #expect(error.message.contains("a reader appears twice"), "\(error)")
            }
            #expect(try await store.ownership(of: reader)?.owner == nil)
            #expect(try await fixtures.history(reader).isEmpty)
        }
    }

    @Test("a bad claim in a batch fails alone; the others are decided")
    func badClaimFailsAlone() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            // One batch at a time, so claims arriving together leave together.
            let batcher = OwnershipClaimBatcher(store: store, maximumBatch: 32, maximumInFlight: 1)
            let readers = (0..<12).map { ReaderID("tmr_b\($0)") }
            for reader in readers {
                try await fixtures.registerReader(reader)
                _ = try await store.readerAttached(reader)
            }
            let good = ReaderOwner(session: SessionID("sess_good"), lane: LaneLabel("Till 1"))
            try await fixtures.openSession(good.session, lane: good.lane)
            // No such session: the ownership row's foreign key refuses it.
            let ghost = ConnectRequest(session: SessionID("sess_ghost"), lane: LaneLabel("Till 9"))

            let outcomes = await withTaskGroup(of: (ReaderID, Bool, Result<ConnectResult, StoreError>).self) { group in
                for (index, reader) in readers.enumerated() {
                    let isGhost = index == 5
                    group.addTask {
                        let request = isGhost ? ghost : ConnectRequest(session: good.session, lane: good.lane)
                        do throws(StoreError) {
                            return (reader, isGhost, .success(try await batcher.claim(reader, request)))
                        } catch {
                            return (reader, isGhost, .failure(error))
                        }
                    }
                }
                var outcomes: [(ReaderID, Bool, Result<ConnectResult, StoreError>)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.count == readers.count)
            for (reader, isGhost, result) in outcomes {
                switch result {
                case .success(let decision):
                    #expect(!isGhost, "the ghost session's claim must fail")
                    #expect(decision == .granted(.connected, generation: OwnershipGeneration(1), actions: []))
                    #expect(try await store.ownership(of: reader)?.owner == good)
                case .failure(let error):
                    #expect(isGhost, "only the ghost's claim fails: \(error)")
                    #expect(try await store.ownership(of: reader)?.owner == nil)
                    #expect(try await fixtures.history(reader).isEmpty)
                }
            }
        }
    }
}
