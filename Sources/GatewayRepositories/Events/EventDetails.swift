import GatewayCore

/// The JSON object of an event's flat string fields, keys sorted: written by hand, since it
/// runs once per command outcome (Foundation's encoder costs several times more).
enum EventDetails {
    static func json(_ details: [String: String]) -> String {
        var text = "{"
        for (index, key) in details.keys.sorted().enumerated() {
            if index > 0 { text += ", " }
            text += JSONText.quoted(key)
            text += ": "
            text += JSONText.quoted(details[key] ?? "")
        }
        return text + "}"
    }
}
