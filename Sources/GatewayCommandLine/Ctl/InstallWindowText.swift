import GatewayCore
import GatewayWire

/// A location's install window as `gatewayctl` reads and shows it: `02:00-05:00+01:00`
/// (start, end, the location's UTC offset; `Z` or no offset for UTC). The gateway checks the
/// ranges (a window of at least a minute, an offset from -12:00 to +14:00).
public enum InstallWindowText {
    /// "02:00-05:00+01:00".
    public static func show(_ window: ReaderGatewayV1.InstallWindow) -> String {
        let offset = Int(window.utcOffsetMinutes)
        return time(Int(window.startMinute)) + "-" + time(Int(window.endMinute)) + (offset < 0 ? "-" : "+") + time(abs(offset))
    }

    /// Reads `HH:MM-HH:MM`, then optionally `Z`, `+HH:MM` or `-HH:MM`; nil when it is not that.
    public static func parse(_ text: String) -> ReaderGatewayV1.InstallWindow? {
        var body = Substring(text)
        var offset = 0
        if body.hasSuffix("Z") {
            body = body.dropLast()
        } else if body.count == 17, let sign = body.dropFirst(11).first, sign == "+" || sign == "-" {
            guard let minutes = minutes(body.dropFirst(12)) else { return nil }
            offset = sign == "-" ? -minutes : minutes
            body = body.prefix(11)
        }
        let ends = body.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let start = minutes(ends[0]), let end = minutes(ends[1]) else { return nil }
        var window = ReaderGatewayV1.InstallWindow()
        window.startMinute = UInt32(start)
        window.endMinute = UInt32(end)
        window.utcOffsetMinutes = Int32(offset)
        return window
    }

    /// The command-line error for `text`.
    static func invalid(_ text: String) -> OptionsError {
        OptionsError.invalid(name: "install-window", value: text, expected: "START-END[±HH:MM], e.g. 02:00-05:00+01:00 or 22:30-01:00Z", program: "gatewayctl")
    }

    private static func time(_ minutes: Int) -> String {
        let hours = minutes / 60, rest = minutes % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }

    private static func minutes(_ part: Substring) -> Int? {
        let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
        guard pieces.count == 2, pieces.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isNumber) && $0.allSatisfy(\.isASCII) }),
              let hours = Int(pieces[0]), let rest = Int(pieces[1]), hours < 24, rest < 60
        else { return nil }
        return hours * 60 + rest
    }
}
