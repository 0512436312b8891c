/// Durations on command lines and stdin: `250ms`, `1.5s`, `2m`, `24h`, `7d`, or plain seconds (`3`).
public enum DurationText {
    /// Parses `text`; nil when malformed or negative.
    public static func parse(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400)]
        var number = Substring(text)
        var scale = 1.0
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            scale = factor
            break
        }
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        return .milliseconds(Int64((value * scale * 1_000).rounded()))
    }

    /// `1.5s`, `250ms`: short, for output.
    public static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
        if milliseconds % 1_000 == 0 { return "\(milliseconds / 1_000)s" }
        return "\(milliseconds)ms"
    }
}
