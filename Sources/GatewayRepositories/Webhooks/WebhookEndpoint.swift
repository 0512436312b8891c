import Foundation

/// A webhook endpoint of an account (`webhook_endpoints`, migration 25): where the gateway
/// POSTs the account's events, which ones, and whether it still does.
public struct WebhookEndpoint: Sendable, Hashable {
    /// Why an endpoint is disabled.
    public enum DisabledReason: String, Sendable, Hashable {
        /// An administrator disabled it (`UpdateWebhookEndpoint`).
        case requested
        /// Its deliveries kept failing for the whole retry window; the gateway disabled it
        /// and wrote `webhook_endpoint.disabled`.
        case failing
    }

    /// The wildcard of ``enabledEvents``: every event type, present and future.
    public static let allEvents = "*"

    /// `we_` and 24 base-62 characters.
    public var id: String
    public var accountID: String
    /// An `https://` URL.
    public var url: String
    public var description: String
    /// The event types it wants, or `["*"]` for all.
    public var enabledEvents: [String]
    /// Nil while enabled.
    public var disabledReason: DisabledReason?
    public var createdUnixMs: Int64
    /// The first failed attempt since the last delivered one (nil while healthy).
    public var failingSinceUnixMs: Int64?

    public var isEnabled: Bool { disabledReason == nil }

    public init(
        id: String, accountID: String, url: String, description: String, enabledEvents: [String],
        disabledReason: DisabledReason?, createdUnixMs: Int64, failingSinceUnixMs: Int64?
    ) {
        self.id = id
        self.accountID = accountID
        self.url = url
        self.description = description
        self.enabledEvents = enabledEvents
        self.disabledReason = disabledReason
        self.createdUnixMs = createdUnixMs
        self.failingSinceUnixMs = failingSinceUnixMs
    }

    /// Whether the endpoint wants events of `type`.
    public func wants(_ type: String) -> Bool {
        enabledEvents.contains(Self.allEvents) || enabledEvents.contains(type)
    }
}

/// What an update of an endpoint changes: nil fields stay as they are.
public struct WebhookEndpointChange: Sendable, Hashable {
    public var url: String?
    public var description: String?
    public var enabledEvents: [String]?
    /// True enables (and forgets a failing streak), false disables (reason `requested`).
    public var enabled: Bool?

    public init(url: String? = nil, description: String? = nil, enabledEvents: [String]? = nil, enabled: Bool? = nil) {
        self.url = url
        self.description = description
        self.enabledEvents = enabledEvents
        self.enabled = enabled
    }
}
