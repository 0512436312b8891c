import GatewayWire

/// The monotonic clock every ``ClientChannel`` hands its ``FrameConnection``.
enum WireClock {
    private static let origin = ContinuousClock.now

    /// Now, as nanoseconds since the first use of the clock (plus one second, so it is never 0).
    static var now: WireTime {
        let base = origin
        let elapsed = WireTime.nanoseconds(of: ContinuousClock.now - base)
        return WireTime(nanoseconds: UInt64(max(0, elapsed)) &+ 1_000_000_000)
    }
}
