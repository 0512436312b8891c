import GatewayCore
import Synchronization

/// The upper bounds of a histogram's buckets, in the unit the histogram
/// observes (seconds for durations). The `+Inf` bucket is implied.
public struct HistogramBuckets: Sendable, Equatable {
    public static func == (lhs: HistogramBuckets, rhs: HistogramBuckets) -> Bool { lhs.upperBounds == rhs.upperBounds }

    /// Finite, strictly increasing upper bounds.
    public let upperBounds: [Double]
    /// The bounds as written in `le` labels.
    let formattedUpperBounds: [String]

    /// Buckets for quick operations such as a claim in PostgreSQL: 1 ms to 5 s.
    public static let fastOperationSeconds = HistogramBuckets(
        [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
    )

    /// Buckets for commands a cardholder takes part in (collect, confirm): 10 ms to 2 min.
    public static let relayedCommandSeconds = HistogramBuckets(
        [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]
    )

    /// Bounds must be finite and strictly increasing (a programming error otherwise).
    public init(_ upperBounds: [Double]) {
        precondition(!upperBounds.isEmpty, "a histogram needs at least one finite bucket")
        precondition(upperBounds.allSatisfy(\.isFinite), "histogram bounds must be finite (+Inf is implied)")
        precondition(zip(upperBounds, upperBounds.dropFirst()).allSatisfy { $0 < $1 }, "histogram bounds must increase")
        self.upperBounds = upperBounds
        self.formattedUpperBounds = upperBounds.map(PrometheusText.formatDouble)
    }
}

/// Counts observations into fixed buckets and keeps their sum, as a
/// Prometheus histogram.
///
/// Observing is two relaxed atomic adds and a compare-and-swap loop on the
/// sum: no lock. A scrape reads each bucket once; `_count` is the sum of the
/// buckets it read, so `_count` always equals the `+Inf` bucket.
public final class Histogram: Sendable {
    /// The buckets this histogram counts into.
    public let buckets: HistogramBuckets
    /// One non-cumulative count per finite bucket, then the `+Inf` bucket.
    private let counts: [Counter]
    /// The sum of all observations, as the bit pattern of a `Double`.
    private let sumBits = Atomic<UInt64>(Double(0).bitPattern)

    public init(buckets: HistogramBuckets) {
        self.buckets = buckets
        self.counts = (0...buckets.upperBounds.count).map { _ in Counter() }
    }

    /// Records one observation.
    public func observe(_ value: Double) {
        let bounds = buckets.upperBounds
        var index = 0
        while index < bounds.count, value > bounds[index] { index += 1 }
        counts[index].increment()
        var current = sumBits.load(ordering: .relaxed)
        while true {
            let next = (Double(bitPattern: current) + value).bitPattern
            let (exchanged, original) = sumBits.weakCompareExchange(
                expected: current, desired: next, ordering: .relaxed
            )
            if exchanged { return }
            current = original
        }
    }

    /// Records one duration, in seconds.
    public func observe(_ duration: Duration) {
        observe(duration.seconds)
    }

    /// The cumulative bucket counts, the count and the sum, read now.
    public func snapshot() -> Snapshot {
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(counts.count)
        var running: UInt64 = 0
        for counter in counts {
            running &+= counter.value
            cumulative.append(running)
        }
        return Snapshot(
            upperBounds: buckets.upperBounds,
            cumulativeCounts: cumulative,
            sum: Double(bitPattern: sumBits.load(ordering: .relaxed))
        )
    }

    /// What a scrape reads from a histogram.
    public struct Snapshot: Sendable, Equatable {
        /// The finite upper bounds, as in ``HistogramBuckets``.
        public var upperBounds: [Double]
        /// Observations at or below each bound, then the total (`+Inf`).
        public var cumulativeCounts: [UInt64]
        /// The sum of all observations.
        public var sum: Double
        /// The number of observations.
        public var count: UInt64 { cumulativeCounts.last ?? 0 }
    }
}
