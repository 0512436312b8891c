extension Duration {
    /// The duration in whole milliseconds (rounded toward zero).
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// The duration in whole milliseconds, rounded up, so that a wait never reads shorter than
    /// it is (`retry in 6000 ms`); 0 for a duration that is not positive.
    public var millisecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return 0 }
        let perMillisecond: Int64 = 1_000_000_000_000_000
        return seconds * 1_000 + (attoseconds + perMillisecond - 1) / perMillisecond
    }

    /// The duration in (fractional) seconds.
    public var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    /// The duration as a plain decimal number of seconds, exact to the nanosecond, with
    /// neither a unit nor an exponent: `0.001520692`, `5`, `-1.25`.
    ///
    /// What a log field or other machine-read text carries: `Duration`'s own description
    /// (`0.001520692 seconds`) repeats the unit the field's name already says and is not
    /// a number, and `Double`'s switches to an exponent below 1e-4 (`1e-05`).
    public var secondsText: String {
        let (whole, attoseconds) = components
        let negative = whole < 0 || attoseconds < 0
        let nanoseconds = attoseconds.magnitude / 1_000_000_000
        var text = (negative ? "-" : "") + String(whole.magnitude)
        guard nanoseconds > 0 else { return text == "-0" ? "0" : text }
        var fraction = String(nanoseconds)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        text += "." + fraction
        return text
    }
}
