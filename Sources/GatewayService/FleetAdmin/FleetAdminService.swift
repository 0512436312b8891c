import GatewayCore
import GatewayOperations
import GatewayRepositories
import GatewayWire

/// The fleet admin surface (`FleetAdmin/*`): locations, reader registration (by code or
/// serial), ownership and its history, forced releases, connection tokens, sessions. It
/// shares the registry and the store with the other surfaces, reached through the store
/// protocols it uses (`Store/`).
struct FleetAdminService: FleetAdminRoutes, ShowsReaders, StoreFollowUps {
    let configuration: ServiceConfiguration
    /// The accounts of secret keys.
    let accounts: any AdminAccounts
    /// Fleet console sign-ins (a call from the console page).
    let consoleSessions: any ConsoleSessionRepository
    let locations: any LocationRepository
    /// The account's readers.
    let readerRecords: any ReaderRepository
    let registrations: any ReaderRegistrations
    /// The codes readers show, taken by a registration.
    let codes: any RegistrationCodes
    let tokens: any ConnectionTokenRepository
    let ownership: any OwnershipAdministration
    /// Why mobile readers' links ended, merged into their ownership history.
    let linkEndings: any MobileLinkEndings
    /// The replicas a registration may be handed to (the code is shown there).
    let cluster: any ReplicaDirectory
    let registry: LiveRegistry
    let node: NodeIdentity
    /// Connections to the other replicas' internal listeners (a code shown by a reader homed there).
    let replicas: ReplicaChannels
    let metrics: GatewayMetrics
    /// The software update catalogs and rules.
    let updates: SoftwareUpdateCatalog
    /// `WatchFleet`'s watchers, told of the changes this surface makes.
    let fleet: any FleetWatching
    /// The account's event log (`ListEvents`, `GetEvent`).
    let events: any FleetEventLog
    /// The audit log: each change this surface makes and each refusal for a missing permission.
    let audit: any AdminAuditLog
    /// Failed authentications, limited per source address and account.
    let limiter: AuthenticationLimiter
    /// Webhook endpoints and resends (nil where no PostgreSQL backs the surface: those calls
    /// answer that webhooks are not available).
    var webhooks: (any WebhookEndpointRepository)? = nil
    let logger = Logger(component: "service")

    var watchFleet: FleetAdminRoute.WatchFleet {
        .task { [self] request, call, context in await watchFleet(request, call: call, context: context) }
    }
}
