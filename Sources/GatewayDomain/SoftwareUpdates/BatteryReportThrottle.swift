/// When a reader's battery level is worth a PostgreSQL write: heartbeats carry it every few
/// seconds, and the fleet view needs it only roughly, so the level in memory is always the
/// latest and the stored one follows it at most once per ``minimumIntervalMs`` — at once when
/// it moved by ``significantChange`` or more, or crossed the required-update threshold.
public struct BatteryReportThrottle: Sendable, Hashable {
    /// What was last written.
    public struct Written: Sendable, Hashable {
        public var level: Float?
        public var atMs: Int64
        public init(level: Float?, atMs: Int64) {
            self.level = level
            self.atMs = atMs
        }
    }

    /// A change at least this large is written at once.
    public var significantChange: Float = 0.05
    /// A smaller change waits this long after the last write.
    public var minimumIntervalMs: Int64 = 300_000
    /// The level written last; nil before the first write.
    public private(set) var written: Written?

    public init(significantChange: Float = 0.05, minimumIntervalMs: Int64 = 300_000) {
        self.significantChange = significantChange
        self.minimumIntervalMs = minimumIntervalMs
    }

    /// `level` was written at `nowMs` by other means (with the link's attach): the next
    /// reports are measured from it.
    public mutating func recorded(_ level: Float?, nowMs: Int64) {
        written = Written(level: level, atMs: nowMs)
    }

    /// A heartbeat reported `level` at `nowMs`: true when the caller should write it (the
    /// throttle then counts it as written).
    public mutating func reported(_ level: Float?, nowMs: Int64) -> Bool {
        guard let last = written else {
            written = Written(level: level, atMs: nowMs)
            return true
        }
        guard last.level != level else { return false }
        let write: Bool
        switch (last.level, level) {
        case (let before?, let now?):
            let threshold = SoftwareUpdatePolicy.minimumBatteryLevel
            let crossed = (before > threshold) != (now > threshold)
            write = crossed || abs(now - before) >= significantChange || nowMs - last.atMs >= minimumIntervalMs
        default:
            // A battery appeared or disappeared (a reader on or off mains power).
            write = true
        }
        if write { written = Written(level: level, atMs: nowMs) }
        return write
    }
}
