extension Duration {
    /// The duration in whole nanoseconds (negative durations count as zero): what the loops'
    /// monotonic deadlines are counted in.
    public var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
