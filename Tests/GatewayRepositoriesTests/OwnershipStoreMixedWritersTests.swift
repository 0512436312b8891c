import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayTestKit
import GatewayTestSupport
import Testing

/// Every kind of writer at once — claims, fenced commands, disconnects, admin releases, the
/// reader's link dropping and coming back, lease sweeps — on a few readers.
@Suite("Ownership store: every writer at once")
struct OwnershipStoreMixedWritersTests {
    @Test("history generations stay gap-free and match the stored generation")
    func mixedWriters() async throws {
        try await withOwnershipDatabase(connections: 16) { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let readers = (0..<3).map { ReaderID("tmr_mixed_\($0)") }
            let sessions = (0..<12).map { ReaderOwner(session: SessionID("sess_m\($0)"), lane: LaneLabel("Lane \($0)")) }
            for reader in readers {
                try await fixtures.registerReader(reader)
                _ = try await store.readerAttached(reader)
            }
            for owner in sessions { try await fixtures.openSession(owner.session, lane: owner.lane) }

            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<12 {
                    group.addTask {
                        var random = SplitMix64(seed: UInt64(worker) &* 7919 &+ 1)
                        for _ in 0..<40 {
                            let reader = readers[Int(random.next() % UInt64(readers.count))]
                            let who = sessions[Int(random.next() % UInt64(sessions.count))]
                            switch random.next() % 10 {
                            case 0, 1, 2, 3:
                                let request = ConnectRequest(session: who.session, lane: who.lane, failIfInUse: random.next() % 2 == 0)
                                _ = try await store.claim(reader, request)
                            case 4, 5:
                                guard let record = try await store.ownership(of: reader), let owner = record.owner else { continue }
                                let command: ReaderCommand = random.next() % 2 == 0 ? .collectPaymentMethod : .confirmPaymentIntent
                                if try await store.commandStarted(command, reader: reader, session: owner.session, generation: record.generation) == .proceed,
                                    random.next() % 2 == 0
                                {
                                    _ = try await store.commandFinished(command, reader: reader, session: owner.session, generation: record.generation)
                                }
                            case 6:
                                guard let record = try await store.ownership(of: reader), let owner = record.owner else { continue }
                                _ = try await store.disconnect(reader: reader, session: owner.session, generation: record.generation)
                            case 7:
                                _ = try await store.adminRelease(reader: reader)
                            case 8:
                                guard let record = try await store.ownership(of: reader) else { continue }
                                _ = try await store.readerLost(reader, epoch: record.epoch)
                                _ = try await store.readerAttached(reader)
                            default:
                                try await fixtures.expireLease(who.session)
                                _ = try await store.expireSessions(limit: 10)
                                try await client.execute(
                                    "UPDATE sdk_sessions SET lease_expires_at = now() + interval '1 hour' WHERE id = $1",
                                    [PostgresValue(who.session.rawValue)]
                                )
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }

            for reader in readers {
                let record = try #require(try await store.ownership(of: reader))
                let history = try await fixtures.history(reader)
                let changes = history.filter { $0.reason != "refused_busy" }
                #expect(changes.map(\.generation) == (0..<changes.count).map { Int64($0 + 1) }, "\(reader): generations 1, 2, 3… in order")
                #expect(Int64(changes.count) == record.generation.rawValue, "\(reader): one history row per generation")
                var current: Int64 = 0
                for row in history {
                    if row.reason == "refused_busy" { #expect(row.generation == current) } else { current = row.generation }
                }
                // The stored owner is the one the last change handed the reader to.
                #expect(record.owner?.session.rawValue == changes.last?.to)
                if let command = record.commandInProgress { #expect(command.session == record.owner?.session) }
            }
        }
    }
}
