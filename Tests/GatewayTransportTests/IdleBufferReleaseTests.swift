@testable import GatewayTransport
import Testing

/// A connection's own quiet time before its buffers go: longer while its releases are undone at
/// once, the configured one again after a release that lasted. Pure: times are plain numbers.
@Suite("Each connection's idle-buffer threshold")
struct IdleBufferReleaseTests {
    static let configured: UInt64 = 20_000_000

    @Test("a new connection waits the configured quiet time")
    func startsAtTheConfiguredThreshold() {
        let release = IdleBufferRelease(configured: Self.configured)
        #expect(release.threshold == Self.configured)
    }

    @Test("a release undone sooner than the threshold doubles it, up to 64 times the configured one")
    func prematureReleasesDoubleItUpToTheCap() {
        var release = IdleBufferRelease(configured: Self.configured)
        var now: UInt64 = 1_000_000_000
        var thresholds: [UInt64] = []
        for _ in 0..<8 {
            now += release.threshold
            release.released(at: now)
            now += release.threshold - 1
            release.taken(at: now)
            thresholds.append(release.threshold / Self.configured)
        }
        #expect(thresholds == [2, 4, 8, 16, 32, 64, 64, 64])
    }

    @Test("a release that lasts the threshold puts it back to the configured one")
    func aLastingReleaseResetsIt() {
        var release = IdleBufferRelease(configured: Self.configured)
        release.released(at: 100)
        release.taken(at: 100 + Self.configured / 2)
        #expect(release.threshold == 2 * Self.configured)
        release.released(at: 1_000_000_000)
        // Quiet for exactly the (doubled) threshold: not premature.
        release.taken(at: 1_000_000_000 + 2 * Self.configured)
        #expect(release.threshold == Self.configured)
    }

    @Test("a reader released between heartbeats seconds apart keeps the configured threshold")
    func heartbeatsKeepTheConfiguredThreshold() {
        var release = IdleBufferRelease(configured: Self.configured)
        var now: UInt64 = 0
        for _ in 0..<10 {
            now += 5_000_000_000
            release.taken(at: now)
            release.released(at: now + Self.configured)
            #expect(release.threshold == Self.configured)
        }
    }

    @Test("a threshold of centuries does not overflow when doubled")
    func aHugeThresholdSaturates() {
        var release = IdleBufferRelease(configured: .max / 3)
        release.released(at: 0)
        release.taken(at: 1)
        #expect(release.threshold == (UInt64.max / 3) * 2)
        release.released(at: 2)
        release.taken(at: 3)
        #expect(release.threshold == .max)
        release.released(at: 4)
        release.taken(at: 5)
        #expect(release.threshold == .max)
    }
}
