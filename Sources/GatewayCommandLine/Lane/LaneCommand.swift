import GatewayClient

/// A line command on pos-lane's stdin.
///
/// | line | call |
/// | --- | --- |
/// | `discover [--serial SERIAL \| --reader-id READER_ID]` | discoverReaders (a new discovery supersedes the previous one); with a flag, that one reader only |
/// | `connect READER_ID [--fail-if-in-use]` | connectReader with the reader from the latest discovery |
/// | `easy-connect --serial SERIAL \| --reader-id READER_ID [--fail-if-in-use]` | easyConnect: discovers that one reader and connects it in one call |
/// | `collect AMOUNT` | collectPaymentMethod (AMOUNT in minor units, or `12.34`) |
/// | `confirm` | confirmPaymentIntent of the last collect |
/// | `cancel` | cancelCollectPaymentMethod |
/// | `display "ITEM" AMOUNT` | setReaderDisplay with one line |
/// | `clear` | clearReaderDisplay |
/// | `reboot` | rebootReader |
/// | `install-update` | installAvailableUpdate (in the background: progress lines follow) |
/// | `cancel-update` | cancelReaderSoftwareUpdate |
/// | `disconnect` | disconnectReader |
/// | `tap-to-pay [MODEL OS_VERSION]` | connectTapToPayReader: this device as its own reader (default: a supported simulated iPhone) |
/// | `tap [BRAND LAST4]` | the customer taps a card on the Tap to Pay reader (default visa 4242) |
/// | `background` | the app goes to the background: a Tap to Pay reader disconnects, its owner kept while it may reconnect |
/// | `foreground` | the app is in the foreground again: a Tap to Pay reader reconnects |
/// | `bt-scan [SECONDS]` | Bluetooth scan of the lane's simulated readers for SECONDS (default 1): the nearby list on every change |
/// | `bt-proximity` | Bluetooth proximity: the closest reader, twice (serial, then battery) |
/// | `bt-connect SERIAL` | connectBluetoothReader with the reader from the latest Bluetooth discovery, at `--location` (WisePad 3: the passkey is shown, confirmed on the reader, paired here) |
/// | `bt-disconnect` | disconnect the Bluetooth reader |
/// | `bt-cancel-reconnect` | stop a running automatic reconnect |
/// | `bt-power SERIAL on\|off` | power a simulated reader on or off |
/// | `bt-range SERIAL in\|out` | move a simulated reader in or out of range |
/// | `bt-battery SERIAL LEVEL` | set a simulated reader's battery (0.0 to 1.0) |
/// | `bt-hours HOURS` | simulated time passes (batteries drain, a reader reboots after 24 h up) |
/// | `bt-card SERIAL [BRAND LAST4]` | the customer inserts a card in a simulated Bluetooth reader |
///
/// With `--bluetooth-air PATH` the readers live in reader-sim, which drives them (its stdin);
/// `bt-power`, `bt-range`, `bt-battery`, `bt-hours` and `bt-card` are refused, saying so.
/// | `quit` | closeSession and exit |
public enum LaneCommand: Sendable, Hashable {
    case discover(filter: DiscoveryFilter?)
    case connect(readerID: String, failIfInUse: Bool)
    case easyConnect(filter: DiscoveryFilter, failIfInUse: Bool)
    case collect(amount: Int64)
    case confirm
    case cancel
    case display(item: String, amount: Int64)
    case clear
    case reboot
    case installUpdate
    case cancelUpdate
    case disconnect
    case tapToPay(model: String?, osVersion: String?)
    case tap(brand: String, last4: String)
    case background
    case foreground
    case bluetooth(BluetoothLaneCommand)
    case quit

    /// A command that could not be understood.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Parses one line; nil for a blank line or a `#` comment.
    public static func parse(_ line: String) throws(ParseError) -> LaneCommand? {
        let words = split(line)
        guard let verb = words.first?.lowercased(), !verb.hasPrefix("#") else { return nil }
        func expect(_ usage: String, _ ok: Bool) throws(ParseError) {
            if !ok { throw ParseError(message: "expected `\(usage)`") }
        }
        switch verb {
        case "discover":
            let usage = "discover [--serial SERIAL | --reader-id READER_ID]"
            let (filter, rest) = try parseFilter(Array(words.dropFirst()), usage: usage)
            try expect(usage, rest.isEmpty)
            return .discover(filter: filter)
        case "easy-connect":
            let usage = "easy-connect --serial SERIAL | --reader-id READER_ID [--fail-if-in-use]"
            let (filter, rest) = try parseFilter(Array(words.dropFirst()), usage: usage)
            try expect(usage, rest.allSatisfy { $0 == "--fail-if-in-use" } && rest.count <= 1)
            guard let filter else { throw ParseError(message: "expected `\(usage)`") }
            return .easyConnect(filter: filter, failIfInUse: !rest.isEmpty)
        case "connect":
            let flags = words.dropFirst().filter { $0.hasPrefix("--") }
            let rest = words.dropFirst().filter { !$0.hasPrefix("--") }
            try expect("connect READER_ID [--fail-if-in-use]", rest.count == 1 && flags.allSatisfy { $0 == "--fail-if-in-use" })
            return .connect(readerID: rest[0], failIfInUse: !flags.isEmpty)
        case "collect":
            guard words.count == 2, let amount = parseAmount(words[1]) else { throw ParseError(message: "expected `collect AMOUNT` (cents, or 12.34)") }
            return .collect(amount: amount)
        case "display":
            guard words.count == 3, let amount = parseAmount(words[2]) else { throw ParseError(message: "expected `display \"ITEM\" AMOUNT`") }
            return .display(item: words[1], amount: amount)
        case "confirm": return .confirm
        case "cancel": return .cancel
        case "clear": return .clear
        case "reboot": return .reboot
        case "install-update": return .installUpdate
        case "cancel-update": return .cancelUpdate
        case "disconnect": return .disconnect
        case "tap-to-pay":
            try expect("tap-to-pay [MODEL OS_VERSION]", words.count == 1 || words.count == 3)
            return words.count == 3 ? .tapToPay(model: words[1], osVersion: words[2]) : .tapToPay(model: nil, osVersion: nil)
        case "tap":
            try expect("tap [BRAND LAST4]", words.count == 1 || (words.count == 3 && words[2].count == 4 && words[2].allSatisfy(\.isNumber)))
            return words.count == 3 ? .tap(brand: words[1], last4: words[2]) : .tap(brand: "visa", last4: "4242")
        case "background":
            try expect("background", words.count == 1)
            return .background
        case "foreground":
            try expect("foreground", words.count == 1)
            return .foreground
        case "quit", "exit": return .quit
        case _ where verb.hasPrefix("bt-"):
            return .bluetooth(try BluetoothLaneCommand.parse(verb, Array(words.dropFirst())))
        default:
            throw ParseError(message: "unknown command \"\(verb)\"; one of discover, connect, easy-connect, collect, confirm, cancel, display, clear, reboot, install-update, cancel-update, disconnect, tap-to-pay, tap, background, foreground, bt-scan, bt-proximity, bt-connect, bt-disconnect, bt-power, bt-range, bt-battery, bt-hours, bt-card, quit")
        }
    }

    /// The `--serial SERIAL` or `--reader-id READER_ID` among `words` (at most one of them),
    /// and the words left.
    static func parseFilter(_ words: [String], usage: String) throws(ParseError) -> (DiscoveryFilter?, [String]) {
        var filter: DiscoveryFilter?
        var rest: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            guard word == "--serial" || word == "--reader-id" else {
                rest.append(word)
                index += 1
                continue
            }
            guard filter == nil, index + 1 < words.count, !words[index + 1].hasPrefix("--") else { throw ParseError(message: "expected `\(usage)`") }
            filter = word == "--serial" ? .serialNumber(words[index + 1]) : .readerID(words[index + 1])
            index += 2
        }
        return (filter, rest)
    }

    /// `1999` (minor units) or `19.99` (major units with two decimals).
    public static func parseAmount(_ text: String) -> Int64? {
        if let whole = Int64(text), whole >= 0 { return whole }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let major = Int64(parts[0]), major >= 0, parts[1].count == 2, let minor = Int64(parts[1]) else { return nil }
        return major * 100 + minor
    }

    /// Splits on spaces, keeping "double quoted" words together.
    static func split(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var started = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                started = true
            } else if (character == " " || character == "\t") && !quoted {
                if started { words.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started { words.append(current) }
        return words
    }
}
