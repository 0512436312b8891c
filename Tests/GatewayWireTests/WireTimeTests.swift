import GatewayWire
import Testing

@Suite struct WireTimeTests {
    @Test func durationsBecomeWholeNanosecondsAndNegativeOnesZero() {
        #expect(WireTime.nanoseconds(of: .milliseconds(1_500)) == 1_500_000_000)
        #expect(WireTime.nanoseconds(of: .nanoseconds(7)) == 7)
        #expect(WireTime.nanoseconds(of: .zero) == 0)
        // Under a second below zero: the seconds component is 0 and only the attoseconds are negative.
        #expect(WireTime.nanoseconds(of: .milliseconds(-500)) == 0)
        #expect(WireTime.nanoseconds(of: .seconds(-3)) == 0)
        #expect(WireTime.nanoseconds(of: .seconds(Int64.max)) == Int64.max)
    }

    @Test func theClockNeverReadsZeroAndNeverGoesBack() {
        var previous = WireTime.now
        #expect(previous.nanoseconds >= 1_000_000_000)
        for _ in 0..<1_000 {
            let current = WireTime.now
            #expect(current >= previous)
            previous = current
        }
    }
}
