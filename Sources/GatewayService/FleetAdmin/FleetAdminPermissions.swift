import GatewayRepositories

/// The permission a key needs for a `FleetAdmin` method: a level of one resource, and
/// whether the method reaches across locations (a key limited to locations may not call it).
struct KeyRequirement: Sendable, Hashable {
    var resource: KeyResource
    var level: KeyAccessLevel
    /// The method acts on the account as a whole (creating a location, the update catalog),
    /// so a key limited to some locations may not call it.
    var accountWide = false

    /// As the refusal names it: `readers:write`.
    var name: String { "\(resource.rawValue):\(level.name)" }

    static func read(_ resource: KeyResource) -> KeyRequirement { KeyRequirement(resource: resource, level: .read) }
    static func write(_ resource: KeyResource, accountWide: Bool = false) -> KeyRequirement {
        KeyRequirement(resource: resource, level: .write, accountWide: accountWide)
    }
}

/// The one table of what each `FleetAdmin` method needs. The switch has no default, so a
/// method added to `admin.proto` (and so to the generated ``FleetAdminMethod``) does not
/// compile until it has its row here.
extension FleetAdminMethod {
    var requirement: KeyRequirement {
        switch self {
        case .createLocation: .write(.locations, accountWide: true)
        case .listLocations: .read(.locations)
        case .updateLocation: .write(.locations)
        case .registerReader, .registerReadersBySerial, .deleteReader: .write(.readers)
        case .listReaders, .getReader, .watchFleet: .read(.readers)
        case .listReaderOwnership, .listOwnershipHistory, .listSessions: .read(.ownership)
        case .forceReleaseReader: .write(.ownership)
        case .createConnectionToken: .write(.tokens)
        case .listSoftwareUpdates: .read(.updates)
        case .addSoftwareUpdate, .removeSoftwareUpdate: .write(.updates, accountWide: true)
        case .listApiKeys: .read(.keys)
        case .createApiKey, .rollApiKey, .revokeApiKey: .write(.keys)
        case .listEvents, .getEvent: .read(.events)
        // The audit log says what keys did: whoever may see the keys may see it.
        case .listAuditEvents: .read(.keys)
        // Endpoints receive the whole account's events: account-wide, like the keys' catalog.
        case .listWebhookEndpoints: KeyRequirement(resource: .webhooks, level: .read, accountWide: true)
        case .createWebhookEndpoint, .updateWebhookEndpoint, .deleteWebhookEndpoint, .resendEvent, .resendEvents:
            .write(.webhooks, accountWide: true)
        }
    }

    /// The method by its wire path (nil: not a `FleetAdmin` method).
    init?(path: String) {
        guard let method = Self.allCases.first(where: { $0.path == path }) else { return nil }
        self = method
    }

    /// The method's name as in `admin.proto` (`RegisterReader`).
    var name: String { String(path.split(separator: "/").last ?? "") }
}
