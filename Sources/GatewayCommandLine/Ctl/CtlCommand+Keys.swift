import Foundation
import GatewayCore
import GatewayWire

extension CtlCommand {
    /// The resources a key's permissions name, in the order `keys list` shows them.
    static let keyResources = ["locations", "readers", "ownership", "tokens", "updates", "webhooks", "events", "keys"]

    /// `keys create|list|roll|revoke`: the account's secret keys.
    static func parseKeys(_ words: [String], _ options: ParsedOptions) throws(OptionsError) -> CtlCommand {
        func keyID() throws(OptionsError) -> String {
            guard words.count > 2 else { throw usage("`keys \(words[1])` needs a KEY id (key_...)") }
            if words.count > 3 { throw usage("unexpected argument \"\(words[3])\"") }
            return words[2]
        }
        switch words.count > 1 ? words[1] : "list" {
        case "list":
            if words.count > 2 { throw usage("unexpected argument \"\(words[2])\"") }
            return .listKeys
        case "create":
            let name = words.dropFirst(2).joined(separator: " ")
            guard !name.isEmpty else { throw usage("`keys create` needs a NAME") }
            let readOnly = try options.flag("read-only")
            let raw = options.string("permissions")
            if readOnly && raw != nil { throw usage("give either --read-only or --permissions, not both") }
            guard readOnly || raw != nil else { throw usage("`keys create` needs --permissions readers=read,tokens=write,... or --read-only") }
            let permissions = readOnly ? keyResources.map { "\($0)=read" }.joined(separator: ",") : raw ?? ""
            let parsed = try keyPermissions(permissions)
            var expires: Int64 = 0
            if let raw = options.string("expires") {
                guard let date = ISO8601DateFormatter().date(from: raw) else {
                    throw OptionsError.invalid(name: "expires", value: raw, expected: "an RFC 3339 time such as 2026-12-01T00:00:00Z", program: "gatewayctl")
                }
                expires = Int64((date.timeIntervalSince1970 * 1000).rounded())
            }
            let locations = (options.string("locations") ?? options.string("location") ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return .createKey(name: name, permissions: parsed, locationIDs: locations, expiresUnixMs: expires)
        case "roll":
            let id = try keyID()
            var overlap: Duration?
            if let raw = options.string("overlap") {
                guard let parsed = DurationText.parse(raw), parsed > .zero else {
                    throw OptionsError.invalid(name: "overlap", value: raw, expected: "a duration such as 24h or 7d (at most 7 days)", program: "gatewayctl")
                }
                overlap = parsed
            }
            return .rollKey(keyID: id, overlap: overlap)
        case "revoke":
            return .revokeKey(keyID: try keyID())
        case let other:
            throw usage("unknown command \"keys \(other)\"; one of keys list, keys create, keys roll, keys revoke")
        }
    }

    /// `readers=read,tokens=write` (also `all=write` / `all=read`): a level for each named resource.
    static func keyPermissions(_ text: String) throws(OptionsError) -> ReaderGatewayV1.ApiKeyPermissions {
        var permissions = ReaderGatewayV1.ApiKeyPermissions()
        for pair in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            let level: ReaderGatewayV1.KeyAccess? = parts.count == 2 ? ["none": .none, "read": .read, "write": .write][parts[1].lowercased()] : nil
            guard let level, parts[0] == "all" || keyResources.contains(parts[0]) else {
                throw OptionsError.invalid(
                    name: "permissions", value: pair, expected: "resource=none|read|write, the resource one of \(keyResources.joined(separator: ", ")) or all",
                    program: "gatewayctl"
                )
            }
            for resource in parts[0] == "all" ? keyResources : [parts[0]] { permissions[keyResource: resource] = level }
        }
        return permissions
    }
}

extension ReaderGatewayV1.ApiKeyPermissions {
    /// The level of the resource named `name` (one of ``CtlCommand/keyResources``).
    public subscript(keyResource name: String) -> ReaderGatewayV1.KeyAccess {
        get {
            switch name {
            case "locations": locations
            case "readers": readers
            case "ownership": ownership
            case "tokens": tokens
            case "updates": updates
            case "webhooks": webhooks
            case "events": events
            case "keys": keys
            default: .unspecified
            }
        }
        set {
            switch name {
            case "locations": locations = newValue
            case "readers": readers = newValue
            case "ownership": ownership = newValue
            case "tokens": tokens = newValue
            case "updates": updates = newValue
            case "webhooks": webhooks = newValue
            case "events": events = newValue
            case "keys": keys = newValue
            default: break
            }
        }
    }
}
