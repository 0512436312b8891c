import GatewayCore
import GatewayWire

extension AdminRendering {
    /// `readers=read,tokens=write` (the resources with access), or `none`.
    public static func permissions(_ permissions: ReaderGatewayV1.ApiKeyPermissions?) -> String {
        let permissions = permissions ?? .init()
        let pairs = CtlCommand.keyResources.compactMap { name -> String? in
            switch permissions[keyResource: name] {
            case .read: "\(name)=read"
            case .write: "\(name)=write"
            default: nil
            }
        }
        return pairs.isEmpty ? "none" : pairs.joined(separator: ",")
    }

    /// `revoked`, `expired`, `rolled (old secret until ...)`, `active`.
    static func keyState(_ key: ReaderGatewayV1.ApiKey, nowUnixMs: Int64) -> String {
        if key.revokedUnixMs > 0 { return "revoked \(time(key.revokedUnixMs))" }
        if key.expiresUnixMs > 0, key.expiresUnixMs <= nowUnixMs { return "expired" }
        if key.previousSecretExpiresUnixMs > 0 { return "rolled; old secret until \(time(key.previousSecretExpiresUnixMs))" }
        return "active"
    }

    public static func table(_ keys: [ReaderGatewayV1.ApiKey], nowUnixMs: Int64) -> Table {
        Table(headers: ["KEY", "NAME", "SECRET", "PERMISSIONS", "LOCATIONS", "EXPIRES", "LAST USED", "STATE"], rows: keys.map {
            [$0.id, $0.name, $0.secretLast4.isEmpty ? "-" : "sk_...\($0.secretLast4)", permissions($0.permissions),
             $0.locationIDs.isEmpty ? "(all)" : $0.locationIDs.joined(separator: ","), $0.expiresUnixMs == 0 ? "never" : time($0.expiresUnixMs),
             time($0.lastUsedUnixMs), keyState($0, nowUnixMs: nowUnixMs)]
        })
    }

    public static func json(_ key: ReaderGatewayV1.ApiKey) -> JSONValue {
        func ms(_ value: Int64) -> JSONValue { value == 0 ? .null : .integer(value) }
        return .object([
            "id": .string(key.id), "name": .string(key.name), "permissions": .string(permissions(key.permissions)),
            "location_ids": .array(key.locationIDs.map(JSONValue.string)), "expires_unix_ms": ms(key.expiresUnixMs),
            "created_unix_ms": ms(key.createdUnixMs), "last_used_unix_ms": ms(key.lastUsedUnixMs), "rolled_unix_ms": ms(key.rolledUnixMs),
            "previous_secret_expires_unix_ms": ms(key.previousSecretExpiresUnixMs), "revoked_unix_ms": ms(key.revokedUnixMs),
            "secret_last4": .string(key.secretLast4),
        ])
    }

    /// A new or rolled key: its secret (shown once) and what it is.
    public static func json(_ key: ReaderGatewayV1.ApiKey?, secret: String) -> JSONValue {
        .object(["key": json(key ?? .init()), "secret": .string(secret)])
    }
}
