/// Claims per second and latency percentiles of one run.
struct LatencyStats: Sendable {
    var claims: Int
    var seconds: Double
    var p50Microseconds: Double
    var p99Microseconds: Double

    var claimsPerSecond: Double { seconds > 0 ? Double(claims) / seconds : 0 }

    init(claims: Int, seconds: Double, p50Microseconds: Double, p99Microseconds: Double) {
        self.claims = claims
        self.seconds = seconds
        self.p50Microseconds = p50Microseconds
        self.p99Microseconds = p99Microseconds
    }

    /// From every latency in microseconds, measured over `seconds`.
    init(latencies: [Double], seconds: Double) {
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
        }
        self.init(claims: sorted.count, seconds: seconds, p50Microseconds: percentile(0.50), p99Microseconds: percentile(0.99))
    }
}
