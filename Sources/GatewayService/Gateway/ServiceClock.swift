import Foundation

/// Where the services read the time: the monotonic instant their deadlines, leases, rate
/// limits and durations are measured on, and the wall-clock milliseconds the wire and the
/// rows carry. Every service reads the one clock of its ``ServiceConfiguration`` (and the
/// ``LiveRegistry`` the clock it was made with), so a test moves time by hand and waits for
/// nothing (model: postgres-nio's pool, generic over `Clock`, and its `MockClock`).
public protocol ServiceClock: Sendable {
    /// The monotonic now.
    var now: ContinuousClock.Instant { get }
    /// Milliseconds since the Unix epoch, now.
    var nowUnixMs: Int64 { get }
}

extension ServiceClock {
    /// The wall clock's now as a `Date` (for what records a moment, such as a link's end).
    var date: Date { Date(timeIntervalSince1970: Double(nowUnixMs) / 1000) }
}

/// The system's clocks: `ContinuousClock` and the wall clock.
public struct SystemServiceClock: ServiceClock {
    public init() {}

    public var now: ContinuousClock.Instant { ContinuousClock.now }

    public var nowUnixMs: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
