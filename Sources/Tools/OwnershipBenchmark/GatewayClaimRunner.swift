import Foundation
import GatewayCore
import GatewayDomain
import GatewayPostgres
import GatewayRepositories

/// Claims through ``OwnershipStore`` (or its batcher) from `clients` concurrent tasks for a fixed time.
///
/// Each task is one claimant session (ids 1…clients, as pgbench's `:client_id + 1`) claiming a
/// random reader with failIfInUse false, back to back, as the gateway would on connects.
struct GatewayClaimRunner {
    var claim: @Sendable (ReaderID, ConnectRequest) async throws -> ConnectResult
    var readers: Int

    init(store: OwnershipStore, readers: Int) {
        self.claim = { try await store.claim($0, $1) }
        self.readers = readers
    }

    init(batcher: OwnershipClaimBatcher, readers: Int) {
        self.claim = { try await batcher.claim($0, $1) }
        self.readers = readers
    }

    func run(clients: Int, seconds: Int) async throws -> LatencyStats {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .seconds(seconds)
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for client in 1...clients {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    var latencies: [Double] = []
                    latencies.reserveCapacity(seconds * 20_000 / clients)
                    let request = ConnectRequest(
                        session: SessionID(String(client)),
                        lane: LaneLabel(String(client)),
                        failIfInUse: false,
                        readerDiscovery: DiscoveryStateMachine.DiscoveryID(1),
                        latestDiscovery: DiscoveryStateMachine.DiscoveryID(1)
                    )
                    while clock.now < deadline {
                        let reader = ReaderID(String(Int.random(in: 1...readers, using: &generator)))
                        let began = clock.now
                        let result = try await claim(reader, request)
                        guard case .granted = result else {
                            throw BenchmarkError("claim of reader \(reader) was refused: \(result)")
                        }
                        let elapsed = clock.now - began
                        latencies.append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
                    }
                    return latencies
                }
            }
            var all: [Double] = []
            for try await part in group { all += part }
            return all
        }
        let elapsed = clock.now - start
        return LatencyStats(latencies: latencies, seconds: elapsed.seconds)
    }
}
