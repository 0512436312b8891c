/// A location's software install window: the hours of its local day (a fixed offset from UTC)
/// in which the catalog's updates become required for the readers there.
///
/// What it governs (``SoftwareUpdatePolicy``): an update whose `requiredAt` falls outside the
/// window becomes required at the window's next opening instead, at most a day later, so the
/// connect that installs it (minutes with the lane waiting) comes no earlier than the hours
/// the location chose. Once required it stays required at any hour: a required update still
/// installs at the next connect, inside the window or not, and the window never refuses an
/// install the lane asks for.
///
/// `startMinute` and `endMinute` count minutes after local midnight (0 to 1439); the window
/// includes its start and excludes its end, and an end before the start spans midnight
/// (22:00 to 02:00). A window must be at least a minute long, and shorter than a day.
/// (`gatewayctl` reads and shows it as `02:00-05:00+01:00`.)
public struct InstallWindow: Sendable, Hashable {
    public static let minutesPerDay = 1440
    static let msPerMinute: Int64 = 60_000
    static let msPerDay = Int64(minutesPerDay) * msPerMinute
    /// UTC-12:00 … UTC+14:00, the offsets in use.
    public static let utcOffsetRange = -720...840

    public let startMinute: Int
    public let endMinute: Int
    public let utcOffsetMinutes: Int

    /// Why a window was refused.
    public struct Invalid: Error, Hashable, Sendable {
        public let message: String
    }

    public init(startMinute: Int, endMinute: Int, utcOffsetMinutes: Int) throws(Invalid) {
        let day = 0..<Self.minutesPerDay
        guard day.contains(startMinute), day.contains(endMinute) else {
            throw Invalid(message: "an install window's start and end are times of day, 00:00 to 23:59")
        }
        guard startMinute != endMinute else {
            throw Invalid(message: "an install window's start and end are the same time; give a window of at least a minute (or clear the window to allow every hour)")
        }
        guard Self.utcOffsetRange.contains(utcOffsetMinutes) else {
            throw Invalid(message: "an install window's UTC offset must be between -12:00 and +14:00")
        }
        self.startMinute = startMinute
        self.endMinute = endMinute
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    /// The minute of the local day at `unixMs`, and the Unix time of that local day's midnight.
    private func localDay(_ unixMs: Int64) -> (minute: Int, midnightMs: Int64) {
        let localMs = unixMs + Int64(utcOffsetMinutes) * Self.msPerMinute
        let intoDay = ((localMs % Self.msPerDay) + Self.msPerDay) % Self.msPerDay
        return (Int(intoDay / Self.msPerMinute), unixMs - intoDay)
    }

    /// Whether `unixMs` falls inside the window.
    public func contains(_ unixMs: Int64) -> Bool {
        let minute = localDay(unixMs).minute
        return startMinute < endMinute
            ? minute >= startMinute && minute < endMinute
            : minute >= startMinute || minute < endMinute
    }

    /// `unixMs` when it falls inside the window, else the window's next opening (within a day).
    public func nextOpening(atOrAfter unixMs: Int64) -> Int64 {
        guard !contains(unixMs) else { return unixMs }
        let (_, midnightMs) = localDay(unixMs)
        let todayStart = midnightMs + Int64(startMinute) * Self.msPerMinute
        return todayStart > unixMs ? todayStart : todayStart + Self.msPerDay
    }
}
