/// pos-lane's Bluetooth commands (`bt-…`): discovery and connection of Bluetooth readers
/// through the lane's simulated radio, and what happens to the simulated readers around it.
public enum BluetoothLaneCommand: Sendable, Hashable {
    case scan(seconds: Double)
    case proximity
    case connect(serial: String)
    case disconnect
    case cancelReconnect
    case power(serial: String, on: Bool)
    case range(serial: String, inRange: Bool)
    case battery(serial: String, level: Float)
    case hours(Double)
    case card(serial: String, brand: String, last4: String)

    /// The verb after `bt-`.
    public var verb: String {
        switch self {
        case .scan: "scan"
        case .proximity: "proximity"
        case .connect: "connect"
        case .disconnect: "disconnect"
        case .cancelReconnect: "cancel-reconnect"
        case .power: "power"
        case .range: "range"
        case .battery: "battery"
        case .hours: "hours"
        case .card: "card"
        }
    }

    /// Parses the words after a `bt-` verb.
    static func parse(_ verb: String, _ arguments: [String]) throws(LaneCommand.ParseError) -> BluetoothLaneCommand {
        func expect(_ usage: String, _ ok: Bool) throws(LaneCommand.ParseError) {
            if !ok { throw LaneCommand.ParseError(message: "expected `\(usage)`") }
        }
        switch verb {
        case "bt-scan":
            try expect("bt-scan [SECONDS]", arguments.count <= 1 && (arguments.first.flatMap(Double.init).map { $0 > 0 } ?? arguments.isEmpty))
            return .scan(seconds: arguments.first.flatMap(Double.init) ?? 1)
        case "bt-proximity":
            try expect("bt-proximity", arguments.isEmpty)
            return .proximity
        case "bt-connect":
            try expect("bt-connect SERIAL", arguments.count == 1)
            return .connect(serial: arguments[0].uppercased())
        case "bt-disconnect":
            try expect("bt-disconnect", arguments.isEmpty)
            return .disconnect
        case "bt-cancel-reconnect":
            try expect("bt-cancel-reconnect", arguments.isEmpty)
            return .cancelReconnect
        case "bt-power":
            try expect("bt-power SERIAL on|off", arguments.count == 2 && ["on", "off"].contains(arguments[1]))
            return .power(serial: arguments[0].uppercased(), on: arguments[1] == "on")
        case "bt-range":
            try expect("bt-range SERIAL in|out", arguments.count == 2 && ["in", "out"].contains(arguments[1]))
            return .range(serial: arguments[0].uppercased(), inRange: arguments[1] == "in")
        case "bt-battery":
            let level = arguments.count == 2 ? Float(arguments[1]) : nil
            try expect("bt-battery SERIAL LEVEL (0.0 to 1.0)", level.map { $0 >= 0 && $0 <= 1 } ?? false)
            return .battery(serial: arguments[0].uppercased(), level: level!)
        case "bt-hours":
            let hours = arguments.count == 1 ? Double(arguments[0]) : nil
            try expect("bt-hours HOURS", hours.map { $0 > 0 } ?? false)
            return .hours(hours!)
        case "bt-card":
            try expect("bt-card SERIAL [BRAND LAST4]", arguments.count == 1 || (arguments.count == 3 && arguments[2].count == 4 && arguments[2].allSatisfy(\.isNumber)))
            return arguments.count == 3
                ? .card(serial: arguments[0].uppercased(), brand: arguments[1], last4: arguments[2])
                : .card(serial: arguments[0].uppercased(), brand: "visa", last4: "4242")
        default:
            throw LaneCommand.ParseError(
                message: "unknown command \"\(verb)\"; Bluetooth commands are bt-scan, bt-proximity, bt-connect, bt-disconnect, bt-cancel-reconnect, bt-power, bt-range, bt-battery, bt-hours, bt-card"
            )
        }
    }
}
