import GatewayCore

/// A line command on reader-sim's stdin, for tests and humans.
///
/// `TARGET` is a serial number, or `all` / `*` for every simulated reader.
///
/// | line | effect |
/// | --- | --- |
/// | `silent TARGET` | stop heartbeating, keep the TLS connection open |
/// | `wake TARGET` | heartbeat again |
/// | `drop TARGET [DURATION]` | drop the network (close the socket abruptly), re-attach after DURATION (default 1s) |
/// | `offline TARGET` / `online TARGET` | drop the network until `online` |
/// | `reboot TARGET` | disconnect and re-attach (as the reboot command does) |
/// | `slow TARGET DURATION` | answer every command DURATION later (`slow TARGET 0` to stop) |
/// | `ip TARGET ADDRESS` | change the IP address the reader reports |
/// | `present TARGET BRAND LAST4` | the card the next collect reads |
/// | `decline TARGET [CODE] [confirm]` | the next collect (with `confirm`: the next confirm) fails with CARD_DECLINED and decline code CODE (default `generic_decline`) |
/// | `battery TARGET LEVEL` | set the battery level (0 to 1) the reader reports |
/// | `fail-update TARGET` | the next software update fails halfway (READER_SOFTWARE_UPDATE_FAILED) |
/// | `status [TARGET]` | print a `status` line per reader |
/// | `quit` | disconnect every reader and exit 0 |
///
/// Bluetooth readers (`--bluetooth-air`) take `present`, `battery`, `fail-update`, `status`,
/// `quit` and these:
///
/// | line | effect |
/// | --- | --- |
/// | `power TARGET on\|off` | power the reader off (`powered_off`) or on (it boots: its 24-hour timer restarts) |
/// | `range TARGET in\|out` | move the reader out of the device's range (`bluetooth_signal_lost`) or back |
/// | `idle TARGET` | the reader powers down after being idle (`idle_power_down`) |
/// | `confirm TARGET` / `reject TARGET` | the user answers the pairing passkey on the reader |
/// | `hours N` | N hours of simulated time pass for every reader: batteries drain, a reader up 24 hours reboots (`security_reboot`) |
public enum SimulatorCommand: Sendable, Hashable {
    case silent(target: String)
    case wake(target: String)
    case drop(target: String, duration: Duration)
    case offline(target: String)
    case online(target: String)
    case reboot(target: String)
    case slow(target: String, delay: Duration)
    case changeIP(target: String, address: String)
    case present(target: String, brand: String, last4: String)
    case decline(target: String, code: String, at: DeclineStep)
    case battery(target: String, level: Float)
    case failUpdate(target: String)
    case status(target: String)
    case quit
    case power(target: String, on: Bool)
    case range(target: String, inRange: Bool)
    case idle(target: String)
    case answerPairing(target: String, accepted: Bool)
    case hours(Double)

    /// The reader the command is for; `all` for every one.
    public var target: String {
        switch self {
        case .silent(let target), .wake(let target), .drop(let target, _), .offline(let target), .online(let target),
             .reboot(let target), .slow(let target, _), .changeIP(let target, _), .present(let target, _, _),
             .decline(let target, _, _), .status(let target), .battery(let target, _), .failUpdate(let target),
             .power(let target, _), .range(let target, _), .idle(let target), .answerPairing(let target, _):
            target == "*" ? "all" : target
        case .quit, .hours: "all"
        }
    }

    /// Whether only Bluetooth readers (`--bluetooth-air`) take the command.
    public var isBluetoothOnly: Bool {
        switch self {
        case .power, .range, .idle, .answerPairing, .hours: true
        default: false
        }
    }

    /// Whether only smart readers (over TLS) take the command.
    public var isSmartReaderOnly: Bool {
        switch self {
        case .silent, .wake, .drop, .offline, .online, .reboot, .slow, .changeIP, .decline: true
        default: false
        }
    }

    /// The command's verb, as typed.
    public var verb: String {
        switch self {
        case .silent: "silent"
        case .wake: "wake"
        case .drop: "drop"
        case .offline: "offline"
        case .online: "online"
        case .reboot: "reboot"
        case .slow: "slow"
        case .changeIP: "ip"
        case .present: "present"
        case .decline: "decline"
        case .battery: "battery"
        case .failUpdate: "fail-update"
        case .status: "status"
        case .quit: "quit"
        case .power: "power"
        case .range: "range"
        case .idle: "idle"
        case .answerPairing(_, let accepted): accepted ? "confirm" : "reject"
        case .hours: "hours"
        }
    }

    /// Whether the command applies to the reader with `serial`.
    public func applies(to serial: String) -> Bool { target == "all" || target == serial }

    /// A command that could not be understood; the message says the expected form.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var line: String
        public var message: String
        public var description: String { "\(message) (in \"\(line)\")" }
    }

    /// What a `decline` line declines: the next collect (the card, as the reader or its issuer
    /// refuses it: Stripe Terminal's declinedByReader) or the next confirm (the payment, refused
    /// when it is confirmed: declinedByStripeAPI).
    public enum DeclineStep: String, Sendable, Hashable {
        case collect
        case confirm
    }

    /// The decline code of a `decline` line that names none: Stripe's for a decline with no
    /// more specific reason.
    public static let defaultDeclineCode = "generic_decline"

    /// Parses one stdin line; nil for an empty line or a `#` comment.
    public static func parse(_ line: String) throws(ParseError) -> SimulatorCommand? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let verb = words.first?.lowercased(), !verb.hasPrefix("#") else { return nil }
        func fail(_ usage: String) -> ParseError { ParseError(line: line, message: "expected `\(usage)`") }
        func target() throws(ParseError) -> String {
            guard words.count >= 2 else { throw fail("\(verb) SERIAL|all") }
            return words[1]
        }
        func duration(_ index: Int, _ usage: String, default value: Duration? = nil) throws(ParseError) -> Duration {
            guard words.count > index else {
                if let value { return value }
                throw fail(usage)
            }
            if words[index] == "0" { return .zero }
            guard let parsed = DurationText.parse(words[index]) else { throw fail(usage) }
            return parsed
        }
        switch verb {
        case "silent": return .silent(target: try target())
        case "wake", "resume": return .wake(target: try target())
        case "drop": return .drop(target: try target(), duration: try duration(2, "drop SERIAL [DURATION]", default: .seconds(1)))
        case "offline": return .offline(target: try target())
        case "online": return .online(target: try target())
        case "reboot": return .reboot(target: try target())
        case "slow": return .slow(target: try target(), delay: try duration(2, "slow SERIAL DURATION"))
        case "ip":
            guard words.count == 3 else { throw fail("ip SERIAL ADDRESS") }
            return .changeIP(target: words[1], address: words[2])
        case "present":
            guard words.count == 4, words[3].count == 4, words[3].allSatisfy(\.isNumber) else { throw fail("present SERIAL BRAND LAST4") }
            return .present(target: words[1], brand: words[2].lowercased(), last4: words[3])
        case "decline":
            // A decline code as Stripe writes them: `insufficient_funds`, `expired_card`, ...
            let usage = "decline SERIAL [CODE] [collect|confirm] (CODE: lowercase letters, digits and _, such as insufficient_funds; default generic_decline)"
            guard words.count >= 2 else { throw fail(usage) }
            var rest = Array(words.dropFirst(2))
            let step = rest.last.flatMap { DeclineStep(rawValue: $0.lowercased()) } ?? .collect
            if let last = rest.last, DeclineStep(rawValue: last.lowercased()) != nil { rest.removeLast() }
            guard rest.count <= 1 else { throw fail(usage) }
            let code = rest.first ?? defaultDeclineCode
            guard code.count <= 64, code.first?.isLetter == true, code.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else {
                throw fail(usage)
            }
            return .decline(target: words[1], code: code, at: step)
        case "battery":
            guard words.count == 3, let level = Float(words[2]), level >= 0, level <= 1 else { throw fail("battery SERIAL LEVEL (0 to 1)") }
            return .battery(target: words[1], level: level)
        case "fail-update": return .failUpdate(target: try target())
        case "status": return .status(target: words.count >= 2 ? words[1] : "all")
        case "quit", "exit": return .quit
        case "power":
            guard words.count == 3, ["on", "off"].contains(words[2].lowercased()) else { throw fail("power SERIAL on|off") }
            return .power(target: words[1], on: words[2].lowercased() == "on")
        case "range":
            guard words.count == 3, ["in", "out"].contains(words[2].lowercased()) else { throw fail("range SERIAL in|out") }
            return .range(target: words[1], inRange: words[2].lowercased() == "in")
        case "idle": return .idle(target: try target())
        case "confirm", "reject":
            return .answerPairing(target: try target(), accepted: verb == "confirm")
        case "hours":
            // Time passes for the whole air: `hours N` (or `hours all N`).
            let number = words.count == 2 ? words[1] : words.count == 3 && ["all", "*"].contains(words[1]) ? words[2] : ""
            guard let hours = Double(number), hours > 0, hours <= 24 * 365 else {
                throw fail("hours N (simulated hours for every Bluetooth reader, above 0, at most 8760)")
            }
            return .hours(hours)
        default:
            throw ParseError(
                line: line,
                message: "unknown command \"\(verb)\"; one of silent, wake, drop, offline, online, reboot, slow, ip, present, decline, battery, fail-update, status, quit (Bluetooth readers: power, range, idle, confirm, reject, hours)"
            )
        }
    }
}
