import Foundation
import GatewayRepositories

/// Who a fleet admin call acts as: the account, and the key (or the console session's key)
/// that authorised it, whose locations bound everything the call sees.
struct AdminAccess: Sendable {
    let key: ApiKeyRecord

    var account: String { key.accountID }

    /// Whether the key may see something at `location` (nil: no location, seen only by a key
    /// without a location limit).
    func sees(_ location: String?) -> Bool { key.covers(location: location) }

    /// The key of a console session a 0.1.0 binary opened (no key recorded): the account
    /// key's scope, every permission on every location.
    static func accountKey(of account: String) -> AdminAccess {
        AdminAccess(key: ApiKeyRecord(
            id: "", accountID: account, name: "account key", permissions: .all, locations: nil, isAccountKey: true, createdAt: Date(timeIntervalSince1970: 0)
        ))
    }
}

/// The refusals of a key: the permission it lacks, or why its secret no longer works.
enum KeyRefusal {
    static func label(_ key: ApiKeyRecord) -> String { key.id.isEmpty ? "the account key" : "key \(key.id) (\"\(key.name)\")" }

    /// PERMISSION_DENIED naming the permission `method` needs.
    static func missing(_ requirement: KeyRequirement, method: FleetAdminMethod, key: ApiKeyRecord) -> ServiceError {
        ServiceError(
            .permissionDenied,
            "\(method.name) needs the permission \(requirement.name), which \(label(key)) lacks (it has \(key.permissions.text.isEmpty ? "none" : key.permissions.text)); call it with a key that has \(requirement.name)"
        )
    }

    /// PERMISSION_DENIED for a location-limited key calling a method that reaches across locations.
    static func limited(method: FleetAdminMethod, key: ApiKeyRecord) -> ServiceError {
        ServiceError(
            .permissionDenied,
            "\(method.name) acts on every location of the account, and \(label(key)) is limited to \((key.locations ?? []).joined(separator: ", ")); call it with a key not limited to locations"
        )
    }

    /// What the secret of `key` is refused for.
    static func message(_ key: ApiKeyRecord, _ retirement: KeyRetirement) -> String {
        switch retirement {
        case .rolled(let rolledAt, let overlapEnded):
            "this secret of \(label(key)) was rolled at \(iso(rolledAt)) and stopped working when its overlap ended at \(iso(overlapEnded)); use the key's new secret"
        case .revoked(let at):
            "\(label(key)) was revoked at \(iso(at)); use another key"
        case .expired(let at):
            "\(label(key)) expired at \(iso(at)); create a new key"
        }
    }

    static func retired(_ key: ApiKeyRecord, _ retirement: KeyRetirement) -> ServiceError {
        ServiceError(.secretKeyRetired, message(key, retirement))
    }

    static func iso(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
