extension Duration {
    /// The duration in whole nanoseconds: what the loops' monotonic deadlines are counted in.
    /// Negative durations count as zero, and one too long for 64 bits (some 584 years) as
    /// `UInt64.max`, so that a deadline made of it is never earlier than its delay.
    public var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (total, carry) = whole.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000))
        return carry ? .max : total
    }
}
