import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import Testing

/// Failed authentications' buckets in PostgreSQL (migration 0024): the UPSERT does the
/// arithmetic of ``AuthFailureBucket`` step for step, concurrent failures through two clients
/// (two replicas) each take their own token, and refilled buckets are deleted.
@Suite("Failed authentication buckets in PostgreSQL")
struct AuthFailureBucketStoreTests {
    static let rule = AuthFailureRule(burst: 4, refillPerSecond: 0.25)
    static let t0: Int64 = 1_900_000_000_000

    @Test func theStatementAgreesWithTheStateMachineAtEveryStep() async throws {
        try await withOwnershipDatabase { client in
            let store = AuthFailureBucketStore(client: client)
            var machine = AuthFailureBucket(full: Self.rule, nowUnixMs: Self.t0)
            // Bursts, waits shorter and longer than a token, a clock stepping back, a full refill.
            let offsets: [Int64] = [0, 0, 0, 0, 0, 100, 3_000, 4_000, 4_000, 4_001, 2_000, 12_500, 12_500, 100_000, 100_000]
            var decisions: [AuthFailureDecision] = []
            for offset in offsets {
                let stored = try await store.takeFailure(.source, key: "192.0.2.10", rule: Self.rule, nowUnixMs: Self.t0 + offset)
                let expected = machine.takeFailure(Self.rule, nowUnixMs: Self.t0 + offset)
                #expect(stored == expected, "at +\(offset) ms")
                decisions.append(stored)
            }
            #expect(decisions.contains { if case .lockedOut = $0 { true } else { false } })
            // Another key and another scope are other buckets.
            #expect(try await store.takeFailure(.source, key: "192.0.2.11", rule: Self.rule, nowUnixMs: Self.t0) == .counted(tokensLeft: 3))
            #expect(try await store.takeFailure(.account, key: "192.0.2.10", rule: Self.rule, nowUnixMs: Self.t0) == .counted(tokensLeft: 3))
        }
    }

    @Test func concurrentFailuresOnTwoReplicasTakeExactlyTheBurst() async throws {
        try await withOwnershipDatabase(secondClient: true) { first, second in
            let stores = [AuthFailureBucketStore(client: first), AuthFailureBucketStore(client: second)]
            let decisions = try await withThrowingTaskGroup(of: AuthFailureDecision.self) { group in
                for index in 0..<40 {
                    group.addTask { try await stores[index % 2].takeFailure(.source, key: "198.51.100.7", rule: Self.rule, nowUnixMs: Self.t0) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let counted = decisions.filter { if case .counted = $0 { true } else { false } }
            #expect(counted.count == 4)
            #expect(decisions.filter { $0 == .lockedOut(retryAfter: .seconds(4)) }.count == 36)
        }
    }

    @Test func bucketsLastWrittenBeforeTheCutoffAreDeleted() async throws {
        try await withOwnershipDatabase { client in
            let store = AuthFailureBucketStore(client: client)
            _ = try await store.takeFailure(.source, key: "old", rule: Self.rule, nowUnixMs: Self.t0)
            _ = try await store.takeFailure(.source, key: "new", rule: Self.rule, nowUnixMs: Self.t0 + 20_000)
            #expect(try await store.deleteBuckets(updatedBefore: Self.t0 + 10_000) == 1)
            // The deleted one is full again; the kept one still has its failure counted.
            #expect(try await store.takeFailure(.source, key: "old", rule: Self.rule, nowUnixMs: Self.t0 + 20_000) == .counted(tokensLeft: 3))
            #expect(try await store.takeFailure(.source, key: "new", rule: Self.rule, nowUnixMs: Self.t0 + 20_000) == .counted(tokensLeft: 2))
        }
    }
}
