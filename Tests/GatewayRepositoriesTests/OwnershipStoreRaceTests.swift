import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import Testing

/// Concurrency on a real PostgreSQL: many claimants, stale owners, several sweepers.
@Suite("Ownership store: races")
struct OwnershipStoreRaceTests {
    /// What one claimant got.
    struct Claim: Sendable {
        var session: SessionID
        var result: ConnectResult
    }

    /// How claims are sent: one statement each, or gathered into batches.
    enum Claimer: String, CaseIterable, Sendable {
        case single, batched
    }

    @Test("50 concurrent claimants, mixed failIfInUse, while the reader flips idle / mid-transaction", arguments: Claimer.allCases)
    func fiftyClaimants(_ claimer: Claimer) async throws {
        try await withOwnershipDatabase(connections: 50) { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let batcher = OwnershipClaimBatcher(store: store, maximumBatch: 16, maximumInFlight: 4)
            let claim: @Sendable (ReaderID, ConnectRequest) async throws -> ConnectResult = { reader, request in
                switch claimer {
                case .single: try await store.claim(reader, request)
                case .batched: try await batcher.claim(reader, request)
                }
            }
            let reader = ReaderID("tmr_contended")
            try await fixtures.registerReader(reader)
            _ = try await store.readerAttached(reader)
            // Lane labels with quotes and backslashes travel through the batch's array parameters intact.
            let sessions = (0..<50).map { ReaderOwner(session: SessionID("sess_\($0)"), lane: LaneLabel("Lane \"\($0)\" \\ {x}")) }
            for owner in sessions { try await fixtures.openSession(owner.session, lane: owner.lane) }

            var claims: [Claim] = []
            let first = sessions[0]
            claims.append(Claim(session: first.session, result: try await store.claim(reader, ConnectRequest(session: first.session, lane: first.lane))))
            for round in 0..<6 {
                // The owner starts collectPaymentMethod; failIfInUse claimants bounce off it, all at once.
                let record = try #require(try await store.ownership(of: reader))
                let owner = try #require(record.owner)
                _ = try await store.commandStarted(.collectPaymentMethod, reader: reader, session: owner.session, generation: record.generation)
                let bounced = try await withThrowingTaskGroup(of: Claim.self) { group in
                    for other in sessions.filter({ $0 != owner }).prefix(10) {
                        group.addTask {
                            let request = ConnectRequest(session: other.session, lane: other.lane, failIfInUse: true)
                            return Claim(session: other.session, result: try await claim(reader, request))
                        }
                    }
                    var results: [Claim] = []
                    for try await claim in group { results.append(claim) }
                    return results
                }
                #expect(bounced.allSatisfy { $0.result == .refused(.readerBusy, actions: []) })
                claims += bounced
                // The owner starts and finishes collectPaymentMethod over and over while 50 sessions claim.
                async let flipping: Void = Self.flip(store: store, reader: reader, times: 40)
                let results = try await withThrowingTaskGroup(of: Claim.self) { group in
                    for (index, owner) in sessions.enumerated() {
                        let failIfInUse = (index + round) % 3 != 0
                        group.addTask {
                            let request = ConnectRequest(session: owner.session, lane: owner.lane, failIfInUse: failIfInUse)
                            return Claim(session: owner.session, result: try await claim(reader, request))
                        }
                    }
                    var results: [Claim] = []
                    for try await claim in group { results.append(claim) }
                    return results
                }
                claims += results
                try await flipping
            }
            #expect(claims.count == 1 + 6 * (10 + 50))

            var granted: [Int64: SessionID] = [:]
            var refusedBusy: [SessionID] = []
            for claim in claims {
                switch claim.result {
                case .granted(.connected, let generation, _), .granted(.replaced, let generation, _):
                    #expect(granted[generation.rawValue] == nil, "generation \(generation) granted twice")
                    granted[generation.rawValue] = claim.session
                case .granted(.alreadyOwner, _, _):
                    break
                case .refused(let refusal, _):
                    #expect(refusal == .readerBusy, "only busy refusals are possible here, got \(refusal)")
                    refusedBusy.append(claim.session)
                }
            }
            #expect(refusedBusy.count >= 60, "every bounce wave was refused")

            let history = try await fixtures.history(reader)
            let changes = history.filter { $0.reason != "refused_busy" }
            // Generations strictly increasing with no gaps, in the order the rows were written.
            #expect(changes.map(\.generation) == Array(1...Int64(changes.count)))
            // Every grant is exactly one history row with its generation and session.
            #expect(changes.count == granted.count)
            for row in changes {
                #expect(granted[row.generation]?.rawValue == row.to, "generation \(row.generation)")
            }
            // Every refused claim is recorded once; nothing else is recorded as refused.
            let refusedRows = history.filter { $0.reason == "refused_busy" }
            #expect(refusedRows.compactMap(\.to).sorted() == refusedBusy.map(\.rawValue).sorted())
            // No claim both accepted and refused: history rows are exactly the grants plus the refusals.
            #expect(history.count == granted.count + refusedBusy.count)
            // A refusal names the owner of its moment: the generation current when it was written.
            var current: Int64 = 0
            for row in history {
                if row.reason == "refused_busy" { #expect(row.generation == current) } else { current = row.generation }
            }
            // Exactly one owner: the session of the last grant.
            let record = try #require(try await store.ownership(of: reader))
            let last = try #require(granted.keys.max())
            #expect(record.generation.rawValue == last)
            #expect(record.owner?.session == granted[last])
            #expect(record.owner.map { sessions.contains($0) } == true, "the owner's lane label is stored exactly")
        }
    }

    /// Acts as whoever owns the reader: starts and finishes a transaction, fenced by its
    /// generation.
    static func flip(store: OwnershipStore, reader: ReaderID, times: Int) async throws {
        for _ in 0..<times {
            guard let record = try await store.ownership(of: reader), let owner = record.owner else { continue }
            let start = try await store.commandStarted(.collectPaymentMethod, reader: reader, session: owner.session, generation: record.generation)
            if start == .proceed {
                await Task.yield()
                _ = try await store.commandFinished(.collectPaymentMethod, reader: reader, session: owner.session, generation: record.generation)
            } else {
                #expect(start == .refused(.connectedToAnotherSession) || start == .refused(.readerBusy))
            }
        }
    }

    @Test("a stale owner writing after a takeover changes nothing")
    func staleOwnerIsFenced() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let reader = ReaderID("tmr_fenced")
            let a = ReaderOwner(session: SessionID("sess_a"), lane: LaneLabel("Till 1"))
            let b = ReaderOwner(session: SessionID("sess_b"), lane: LaneLabel("Till 2"))
            try await fixtures.registerReader(reader)
            try await fixtures.openSession(a.session, lane: a.lane)
            try await fixtures.openSession(b.session, lane: b.lane)
            _ = try await store.readerAttached(reader)
            guard case .granted(_, let g1, _) = try await store.claim(reader, ConnectRequest(session: a.session, lane: a.lane)) else {
                Issue.record("A could not connect")
                return
            }
            #expect(try await store.commandStarted(.collectPaymentMethod, reader: reader, session: a.session, generation: g1) == .proceed)
            let takeover = try await store.claim(reader, ConnectRequest(session: b.session, lane: b.lane))
            #expect(takeover == .granted(.replaced(a), generation: g1.next, actions: [
                .cancelCommand(CommandInProgress(command: .collectPaymentMethod, session: a.session)),
                .notifyDisplaced(session: a.session, reason: .connectedToAnotherSession, takenBy: b.lane),
                .failNextCommand(session: a.session, refusal: .connectedToAnotherSession),
            ]))
            let before = try await store.ownership(of: reader)
            let historyBefore = try await fixtures.history(reader)

            #expect(try await store.commandStarted(.collectPaymentMethod, reader: reader, session: a.session, generation: g1) == .refused(.connectedToAnotherSession))
            #expect(try await store.commandStarted(.setReaderDisplay, reader: reader, session: a.session, generation: g1) == .refused(.connectedToAnotherSession))
            #expect(try await store.commandFinished(.collectPaymentMethod, reader: reader, session: a.session, generation: g1) == .ignored(.connectedToAnotherSession))
            #expect(try await store.disconnect(reader: reader, session: a.session, generation: g1) == .refused(.connectedToAnotherSession))

            let after = try await store.ownership(of: reader)
            #expect(after == before)
            #expect(after?.owner == b)
            #expect(try await fixtures.history(reader) == historyBefore)
        }
    }

    @Test("two replicas sweeping expired leases at once record each expiry once")
    func concurrentSweepers() async throws {
        try await withOwnershipDatabase(secondClient: true) { client, replica in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let other = OwnershipStore(client: replica)
            let sessions = (0..<20).map { ReaderOwner(session: SessionID("sess_\($0)"), lane: LaneLabel("Lane \($0)")) }
            for owner in sessions { try await fixtures.openSession(owner.session, lane: owner.lane) }
            var readers: [ReaderID] = []
            for index in 0..<200 {
                let reader = ReaderID("tmr_\(index)")
                readers.append(reader)
                try await fixtures.registerReader(reader)
                _ = try await store.readerAttached(reader)
                let owner = sessions[index % sessions.count]
                _ = try await store.claim(reader, ConnectRequest(session: owner.session, lane: owner.lane))
            }
            // A live session keeps its readers: only half of the sessions expire.
            for owner in sessions.prefix(10) { try await fixtures.expireLease(owner.session) }

            async let first = Self.sweepUntilDone(store)
            async let second = Self.sweepUntilDone(other)
            let (mine, theirs) = try await (first, second)
            let all = mine + theirs
            #expect(all.count == 100)
            #expect(Set(all).count == all.count, "a reader expired twice")
            #expect(!mine.isEmpty || !theirs.isEmpty)

            for (index, reader) in readers.enumerated() {
                let record = try await store.ownership(of: reader)
                let history = try await fixtures.history(reader)
                let expired = history.filter { $0.reason == "session_expired" }
                if index % sessions.count < 10 {
                    #expect(record?.owner == nil)
                    #expect(expired.count == 1, "\(reader) expiries recorded: \(expired.count)")
                    #expect(expired.first?.generation == 2)
                } else {
                    #expect(record?.owner == sessions[index % sessions.count])
                    #expect(expired.isEmpty)
                }
            }
        }
    }

    /// Sweeps in small batches until a sweep finds nothing (bounded).
    static func sweepUntilDone(_ store: OwnershipStore) async throws -> [ReaderID] {
        var expired: [ReaderID] = []
        for _ in 0..<200 {
            let batch = try await store.expireSessions(limit: 7)
            if batch.isEmpty { break }
            expired += batch.map(\.reader)
        }
        return expired
    }
}

@Suite("Ownership store: lease sweeper")
struct OwnershipLeaseSweeperTests {
    @Test("a session that stops heartbeating loses its readers to the sweeper")
    func sweeperReleasesExpiredSession() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let reader = ReaderID("tmr_lease")
            let lane = ReaderOwner(session: SessionID("sess_crashed"), lane: LaneLabel("Till 4"))
            try await fixtures.registerReader(reader)
            try await fixtures.openSession(lane.session, lane: lane.lane)
            _ = try await store.readerAttached(reader)
            _ = try await store.claim(reader, ConnectRequest(session: lane.session, lane: lane.lane))

            let seen = ExpiredLog()
            let sweeper = OwnershipLeaseSweeper(store: store, interval: .milliseconds(20)) { await seen.add($0) }
            let running = Task { await sweeper.run() }
            defer { running.cancel() }
            try await fixtures.expireLease(lane.session)
            let deadline = ContinuousClock.now + .seconds(10)
            while try await store.ownership(of: reader)?.owner != nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await store.ownership(of: reader)?.owner == nil)
            running.cancel()
            await running.value
            let expired = await seen.all
            #expect(expired.map(\.reader) == [reader])
            #expect(expired.first?.result == .released(lane, generation: OwnershipGeneration(2), actions: [
                .notifyDisplaced(session: lane.session, reason: .sessionExpired, takenBy: nil),
                .failNextCommand(session: lane.session, refusal: .connectedToAnotherSession),
            ]))
            #expect(try await fixtures.history(reader).map(\.reason) == ["connected", "session_expired"])
        }
    }
}

actor ExpiredLog {
    private(set) var all: [OwnershipStore.ExpiredOwnership] = []
    func add(_ expired: [OwnershipStore.ExpiredOwnership]) { all += expired }
}
