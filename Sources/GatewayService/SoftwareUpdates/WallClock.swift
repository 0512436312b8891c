import Foundation

/// Where the software update rules read the time (required_at, the 30-day rule): the system
/// clock, or a clock a test sets, so tests move time forward without waiting for it.
public struct WallClock: Sendable {
    /// Milliseconds since the Unix epoch, now.
    public let nowUnixMs: @Sendable () -> Int64

    public init(nowUnixMs: @escaping @Sendable () -> Int64) {
        self.nowUnixMs = nowUnixMs
    }

    /// The system clock.
    public static let system = WallClock { Int64(Date().timeIntervalSince1970 * 1000) }
}
