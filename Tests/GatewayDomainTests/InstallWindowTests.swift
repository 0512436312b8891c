import GatewayDomain
import Testing

/// A location's install window over a clock the test sets: inside and outside, across
/// midnight and across UTC offsets, the next opening, parsing, and what it does to the update
/// rules (when an update becomes required; never un-requiring one).
@Suite("InstallWindow")
struct InstallWindowTests {
    static let minute: Int64 = 60_000
    static let hour: Int64 = 60 * minute
    static let day: Int64 = 24 * hour
    /// 2027-01-15T00:00:00Z, a UTC midnight.
    static let midnightUTC: Int64 = 1_799_971_200_000

    /// "02:00-05:00+01:00" (or "Z" for UTC), as gatewayctl writes it.
    static func window(_ text: String) throws -> InstallWindow {
        func minutes(_ time: Substring) -> Int { Int(time.prefix(2))! * 60 + Int(time.suffix(2))! }
        let start = minutes(text.prefix(5)), end = minutes(text.dropFirst(6).prefix(5))
        let zone = text.dropFirst(11)
        let offset = zone == "Z" ? 0 : (zone.first == "-" ? -1 : 1) * minutes(zone.dropFirst())
        return try InstallWindow(startMinute: start, endMinute: end, utcOffsetMinutes: offset)
    }

    @Test func aWindowIncludesItsStartAndExcludesItsEnd() throws {
        let window = try Self.window("02:00-05:00Z")
        #expect(!window.contains(Self.midnightUTC + 2 * Self.hour - 1))
        #expect(window.contains(Self.midnightUTC + 2 * Self.hour))
        #expect(window.contains(Self.midnightUTC + 5 * Self.hour - 1))
        #expect(!window.contains(Self.midnightUTC + 5 * Self.hour))
        // Any day.
        #expect(window.contains(Self.midnightUTC + 40 * Self.day + 3 * Self.hour))
        #expect(window.contains(Self.midnightUTC - 10 * Self.day + 3 * Self.hour))
    }

    @Test func aWindowEndingBeforeItsStartSpansMidnight() throws {
        let window = try Self.window("22:30-01:00Z")
        #expect(window.contains(Self.midnightUTC - 90 * Self.minute))
        #expect(window.contains(Self.midnightUTC))
        #expect(window.contains(Self.midnightUTC + 59 * Self.minute))
        #expect(!window.contains(Self.midnightUTC + Self.hour))
        #expect(!window.contains(Self.midnightUTC + 12 * Self.hour))
        #expect(!window.contains(Self.midnightUTC - 91 * Self.minute))
    }

    @Test func theOffsetPlacesTheWindowInTheLocationsDay() throws {
        // 02:00-05:00 at UTC+01:00 is 01:00-04:00 UTC; at UTC-05:00 it is 07:00-10:00 UTC.
        let paris = try Self.window("02:00-05:00+01:00")
        #expect(paris.contains(Self.midnightUTC + Self.hour))
        #expect(!paris.contains(Self.midnightUTC + 4 * Self.hour))
        let newYork = try Self.window("02:00-05:00-05:00")
        #expect(!newYork.contains(Self.midnightUTC + 3 * Self.hour))
        #expect(newYork.contains(Self.midnightUTC + 7 * Self.hour))
        #expect(!newYork.contains(Self.midnightUTC + 10 * Self.hour))
        // A half-hour offset.
        let delhi = try Self.window("02:00-05:00+05:30")
        #expect(delhi.contains(Self.midnightUTC - 3 * Self.hour - 30 * Self.minute))
        #expect(!delhi.contains(Self.midnightUTC - 3 * Self.hour - 31 * Self.minute))
    }

    @Test func theNextOpeningIsWithinADay() throws {
        let window = try Self.window("02:00-05:00+01:00")
        let opening = Self.midnightUTC + Self.hour
        // Inside: the moment itself.
        #expect(window.nextOpening(atOrAfter: opening + Self.hour) == opening + Self.hour)
        // Before it the same day: today's opening; after it: tomorrow's.
        #expect(window.nextOpening(atOrAfter: opening - 1) == opening)
        #expect(window.nextOpening(atOrAfter: opening + 3 * Self.hour) == opening + Self.day)
        #expect(window.nextOpening(atOrAfter: opening - 1 + Self.day / 2) == opening + Self.day)
        let spanning = try Self.window("23:00-01:00Z")
        #expect(spanning.nextOpening(atOrAfter: Self.midnightUTC + 2 * Self.hour) == Self.midnightUTC + 23 * Self.hour)
    }

    @Test func outOfRangeWindowsAreRefusedWithWhatToFix() throws {
        for (start, end, offset, expected) in [
            (1440, 0, 0, "times of day"), (-1, 60, 0, "times of day"), (120, 120, 0, "same time"), (60, 120, 900, "UTC offset"),
            (60, 120, -750, "UTC offset"),
        ] {
            do {
                _ = try InstallWindow(startMinute: start, endMinute: end, utcOffsetMinutes: offset)
                Issue.record("\(start)-\(end) at \(offset) was accepted")
            } catch {
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        #expect(try InstallWindow(startMinute: 0, endMinute: 1439, utcOffsetMinutes: 840).utcOffsetMinutes == 840)
    }

    @Test func anUpdateRequiredOutsideTheWindowBecomesRequiredAtItsNextOpening() throws {
        let window = try Self.window("02:00-05:00Z")
        // Required at 14:00: optional until 02:00 the next day, required from then on at any hour.
        let requiredAt = Self.midnightUTC + 14 * Self.hour
        let update = SoftwareUpdatePolicy.Update(version: SoftwareVersion("2.1")!, requiredAtMs: requiredAt)
        let reader = SoftwareUpdatePolicy.Reader(version: SoftwareVersion("2.0"), batteryLevel: 0.9)
        let nextOpening = Self.midnightUTC + Self.day + 2 * Self.hour
        #expect(update.requiredFromMs(in: window) == nextOpening)
        #expect(SoftwareUpdatePolicy.decide(reader, catalog: [update], nowMs: requiredAt, window: window) == .optional(update))
        #expect(SoftwareUpdatePolicy.decide(reader, catalog: [update], nowMs: nextOpening - 1, window: window) == .optional(update))
        #expect(SoftwareUpdatePolicy.decide(reader, catalog: [update], nowMs: nextOpening, window: window) == .required(update))
        // Required stays required outside the window: 15:00 the day after.
        #expect(SoftwareUpdatePolicy.decide(reader, catalog: [update], nowMs: nextOpening + 13 * Self.hour, window: window) == .required(update))
        // Without a window the requiredAt itself counts.
        #expect(SoftwareUpdatePolicy.decide(reader, catalog: [update], nowMs: requiredAt) == .required(update))
        // The battery rule is unchanged by the window.
        let low = SoftwareUpdatePolicy.Reader(version: SoftwareVersion("2.0"), batteryLevel: 0.4)
        #expect(SoftwareUpdatePolicy.decide(low, catalog: [update], nowMs: nextOpening, window: window) == .requiredBatteryLow(update, batteryLevel: 0.4))
    }

    @Test func anUpdateRequiredInsideTheWindowIsRequiredAtItsRequiredAt() throws {
        let window = try Self.window("02:00-05:00Z")
        let requiredAt = Self.midnightUTC + 3 * Self.hour
        let update = SoftwareUpdatePolicy.Update(version: SoftwareVersion("2.1")!, requiredAtMs: requiredAt)
        #expect(update.requiredFromMs(in: window) == requiredAt)
        #expect(!update.isRequired(atMs: requiredAt - 1, in: window))
        #expect(update.isRequired(atMs: requiredAt, in: window))
        // An update never required stays optional whatever the window.
        let optional = SoftwareUpdatePolicy.Update(version: SoftwareVersion("2.2")!, requiredAtMs: nil)
        #expect(optional.requiredFromMs(in: window) == nil)
        #expect(!optional.isRequired(atMs: requiredAt + 100 * Self.day, in: window))
    }
}
