@testable import GatewayCore
import Testing

/// A duration in a log field is a number of seconds, never `"0.0015 seconds"`.
@Suite struct DurationSecondsTests {
    @Test(arguments: [
        (Duration.nanoseconds(1_520_692), "0.001520692"),
        (.seconds(5), "5"),
        (.milliseconds(1500), "1.5"),
        (.microseconds(10), "0.00001"),
        (.nanoseconds(1), "0.000000001"),
        (.zero, "0"),
        (.milliseconds(-1250), "-1.25"),
        (.seconds(86_400 * 365), "31536000"),
    ])
    func secondsTextIsAPlainDecimalNumber(duration: Duration, expected: String) {
        #expect(duration.secondsText == expected)
        #expect(Double(duration.secondsText) == duration.seconds)
    }

    /// A wait is never told shorter than it is, and exactly: 0.1 s is 100 ms, not 101.
    @Test(arguments: [
        (Duration.seconds(6), Int64(6_000)),
        (.seconds(0.1), 100),
        (.milliseconds(999) + .nanoseconds(1), 1_000),
        (.nanoseconds(1), 1),
        (.seconds(1_000) - .milliseconds(17), 999_983),
        (.zero, 0),
        (.milliseconds(-5), 0),
    ])
    func millisecondsRoundUp(duration: Duration, expected: Int64) {
        #expect(duration.millisecondsRoundedUp == expected)
    }

    @Test func aDurationFieldIsLoggedAsANumberOfSeconds() {
        let logger = Logger(component: "main").with("timeout", Duration.seconds(20))
        let record = logger.record(.info, "drain finished", ["seconds": Duration.nanoseconds(1_520_692), "readers": 3])
        #expect(record.metadata.map(\.key) == ["timeout", "seconds", "readers"])
        #expect(record.metadata.map(\.value) == ["20", "0.001520692", "3"])
        let line = LogFormat.logfmt.format(record)
        #expect(line.hasSuffix(" msg=\"drain finished\" timeout=20 seconds=0.001520692 readers=3\n"), "\(line)")
        #expect(!line.contains("seconds\""))
    }
}
