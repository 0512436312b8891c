import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// Wrong keys from one address spread over every replica take from one bucket in
    /// PostgreSQL: the address's 20 failures (the default burst) are answered as wrong keys in
    /// all, not 20 per replica, and each replica then refuses the address, a correct key too.
    @Test func wrongKeysSpreadOverReplicasShareOneBucket() async throws {
        try await ClusterFixture.run(ClusterOptions()) { cluster in
            let guessers = cluster.replicas.map { cluster.admin(port: $0.port, secretKey: "sk_guess_across_replicas") }
            defer { for client in guessers { client.connection.close() } }
            var reasons: [ReaderGatewayV1.ErrorReason] = []
            for attempt in 0..<(20 + guessers.count) {
                do {
                    _ = try await guessers[attempt % guessers.count].listReaders()
                    try cluster.require(false, "a wrong key was served (attempt \(attempt))")
                } catch let error as RPCError {
                    reasons.append(error.reason)
                }
            }
            try cluster.require(
                reasons == Array(repeating: .secretKeyInvalid, count: 20) + Array(repeating: .authenticationRateLimited, count: guessers.count),
                "the answers across replicas: \(reasons)"
            )
            for (index, replica) in cluster.replicas.enumerated() {
                let correct = cluster.admin(port: replica.port)
                defer { correct.connection.close() }
                do {
                    _ = try await correct.listReaders()
                    try cluster.require(false, "replica \(index + 1) served a locked-out address")
                } catch let error as RPCError {
                    try cluster.require(
                        error.reason == .authenticationRateLimited && error.code == .resourceExhausted && error.message.contains("retry in")
                            && (1...6000).contains(error.retryAfterMs),
                        "replica \(index + 1): \(error)"
                    )
                }
            }
        }
    }
}
