import GatewayDomain
import Testing

/// The update rules over a clock the test sets: optional, required at required_at, the
/// battery rule, the 30-day rule, version order.
@Suite("SoftwareUpdatePolicy")
struct SoftwareUpdatePolicyTests {
    static let day: Int64 = 24 * 3600 * 1000
    static let start: Int64 = 1_800_000_000_000

    static func version(_ text: String) -> SoftwareVersion { SoftwareVersion(text)! }
    static func update(_ text: String, requiredAt: Int64?) -> SoftwareUpdatePolicy.Update {
        SoftwareUpdatePolicy.Update(version: version(text), requiredAtMs: requiredAt)
    }
    static func reader(_ text: String?, battery: Float? = 0.9) -> SoftwareUpdatePolicy.Reader {
        SoftwareUpdatePolicy.Reader(version: text.flatMap(SoftwareVersion.init), batteryLevel: battery)
    }

    @Test func versionsCompareNumberByNumber() {
        #expect(Self.version("2.10.0") > Self.version("2.9.9"))
        #expect(Self.version("2.4") == Self.version("2.4.0"))
        #expect(Self.version("1.0.0.1") > Self.version("1"))
        for bad in ["", "2..1", "v2.1", "2.1-beta", "1.2.3.4.5.6.7.8.9", "1234567890", " 2.1"] {
            #expect(SoftwareVersion(bad) == nil, "\(bad) parsed")
        }
    }

    @Test func emptyCatalogAndOlderEntriesLeaveTheReaderUpToDate() {
        #expect(SoftwareUpdatePolicy.decide(Self.reader("2.0"), catalog: [], nowMs: Self.start) == .upToDate)
        let catalog = [Self.update("1.9", requiredAt: Self.start - Self.day), Self.update("2.0", requiredAt: Self.start - Self.day)]
        let decision = SoftwareUpdatePolicy.decide(Self.reader("2.0"), catalog: catalog, nowMs: Self.start)
        #expect(decision == .upToDate)
        #expect(decision.runsLatest)
    }

    @Test func anUpdateIsOptionalUntilItsRequiredAtThenRequired() {
        let update = Self.update("2.1", requiredAt: Self.start + Self.day)
        let before = SoftwareUpdatePolicy.decide(Self.reader("2.0"), catalog: [update], nowMs: Self.start + Self.day - 1)
        #expect(before == .optional(update))
        #expect(before.runsLatest)
        let at = SoftwareUpdatePolicy.decide(Self.reader("2.0"), catalog: [update], nowMs: Self.start + Self.day)
        #expect(at == .required(update))
        #expect(!at.runsLatest)
        let never = Self.update("2.2", requiredAt: nil)
        #expect(SoftwareUpdatePolicy.decide(Self.reader("2.0"), catalog: [never], nowMs: .max) == .optional(never))
    }

    @Test func theNewestNewerVersionInstallsWhenAnyNewerOneIsRequired() {
        let required = Self.update("2.1", requiredAt: Self.start - 1)
        let newest = Self.update("2.3", requiredAt: nil)
        let decision = SoftwareUpdatePolicy.decide(Self.reader("2.0"), catalog: [newest, required], nowMs: Self.start)
        #expect(decision == .required(newest))
        // A reader already past the required one is offered the newest as optional.
        #expect(SoftwareUpdatePolicy.decide(Self.reader("2.2"), catalog: [newest, required], nowMs: Self.start) == .optional(newest))
        // A version the policy cannot read is older than every entry.
        #expect(SoftwareUpdatePolicy.decide(Self.reader("nightly"), catalog: [required], nowMs: Self.start) == .required(required))
    }

    @Test func aRequiredUpdateNeedsTheBatteryAboveHalf() {
        let update = Self.update("2.1", requiredAt: Self.start)
        #expect(SoftwareUpdatePolicy.decide(Self.reader("2.0", battery: 0.5), catalog: [update], nowMs: Self.start)
            == .requiredBatteryLow(update, batteryLevel: 0.5))
        #expect(SoftwareUpdatePolicy.decide(Self.reader("2.0", battery: 0.51), catalog: [update], nowMs: Self.start) == .required(update))
        // No battery: mains power.
        #expect(SoftwareUpdatePolicy.decide(Self.reader("2.0", battery: nil), catalog: [update], nowMs: Self.start) == .required(update))
        // An optional update is offered whatever the battery.
        let optional = Self.update("2.1", requiredAt: nil)
        #expect(SoftwareUpdatePolicy.decide(Self.reader("2.0", battery: 0.1), catalog: [optional], nowMs: Self.start) == .optional(optional))
    }

    @Test func aFailedRequiredUpdateConnectsWithin30DaysOfRunningTheLatest() {
        let ran = Self.start
        #expect(SoftwareUpdatePolicy.mayConnectAfterFailedUpdate(lastRanLatestAtMs: ran, nowMs: ran + 29 * Self.day))
        #expect(SoftwareUpdatePolicy.mayConnectAfterFailedUpdate(lastRanLatestAtMs: ran, nowMs: ran + 30 * Self.day))
        #expect(!SoftwareUpdatePolicy.mayConnectAfterFailedUpdate(lastRanLatestAtMs: ran, nowMs: ran + 30 * Self.day + 1))
        #expect(!SoftwareUpdatePolicy.mayConnectAfterFailedUpdate(lastRanLatestAtMs: nil, nowMs: ran))
    }

    @Test func batteryLevelsAreWrittenOnSignificantChangeOrRarely() {
        var throttle = BatteryReportThrottle(significantChange: 0.05, minimumIntervalMs: 300_000)
        func report(_ level: Float?, _ nowMs: Int64) -> Bool { throttle.reported(level, nowMs: nowMs) }
        #expect(report(0.90, 0))
        #expect(!report(0.90, 1_000))
        // Small drift: held back until the interval passed.
        #expect(!report(0.89, 2_000))
        #expect(!report(0.88, 299_999))
        #expect(report(0.88, 300_000))
        // A large drop is written at once.
        #expect(report(0.80, 301_000))
        // Crossing the required-update threshold is written at once, however small.
        #expect(report(0.51, 302_000))
        #expect(report(0.50, 303_000))
        // Going on mains power (no battery) is written at once.
        #expect(report(nil, 304_000))
        #expect(!report(nil, 305_000))
    }
}
