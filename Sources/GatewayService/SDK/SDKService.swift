import GatewayCore
import GatewayOperations
import GatewayRepositories
import GatewayWire

/// The SDK surface (`Sdk/*`) for point-of-sale lanes, as one conformance to the generated
/// ``SDKRoutes``: each method is served by the sub-surface that owns it, each holding only
/// what it uses. Sessions and their events (``SDKSessions``), discovery (``SDKDiscovery``),
/// connecting readers (``SDKConnect``), both in one call (``SDKEasyConnect``), the commands relayed to them here or over the
/// replica link (``SDKCommands``), and the point-of-sale device's own readers, Tap to Pay
/// and Bluetooth (``SDKMobile``). All of them find a call's session through one
/// ``SDKSessionLookup``. The surface shares the registry and the store with the others.
struct SDKService: SDKRoutes {
    let sessions: SDKSessions
    let discovery: SDKDiscovery
    let connect: SDKConnect
    let easy: SDKEasyConnect
    let commands: SDKCommands
    let mobile: SDKMobile

    /// - Parameters:
    ///   - sessions: session rows.
    ///   - tokens: the connection tokens sessions open with.
    ///   - readerRecords: the account's readers.
    ///   - locations: the account's locations.
    ///   - connects: `ConnectReader`'s claims: those that arrive together share one statement and one commit.
    ///   - cluster: where readers' links live (commands for readers homed on another replica).
    ///   - replicas: connections to the other replicas' internal listeners.
    ///   - follower: re-reads an ownership row when a call finds the session's view stale.
    ///   - updates: the software update catalogs and rules.
    ///   - fleet: `WatchFleet`'s watchers, told of the claims this surface makes.
    ///   - events: the event log, for the outcomes of commands and updates.
    init(
        configuration: ServiceConfiguration, sessions: any SessionRepository, tokens: any ConnectionTokenRepository,
        readerRecords: any ReaderRepository, locations: any LocationRepository, ownership: any OwnershipRepository, connects: any ReaderClaims, cluster: any ReaderHomes, bluetooth: any BluetoothRepository,
        tapToPay: any TapToPayRepository, registry: LiveRegistry, metrics: GatewayMetrics, node: NodeIdentity, replicas: ReplicaChannels,
        follower: any OwnershipFollowing, updates: SoftwareUpdateCatalog, fleet: any FleetChanges, events: any FleetEventLog
    ) {
        let logger = Logger(component: "service")
        let recorder = SDKEventRecorder(events: events, metrics: metrics, logger: logger)
        let lookup = SDKSessionLookup(
            configuration: configuration, sessions: sessions, registry: registry, metrics: metrics, node: node, follower: follower, logger: logger
        )
        let releases = SDKReaderRelease(ownership: ownership, registry: registry, clock: configuration.clock)
        let bonds = BluetoothBonds(bluetooth: bluetooth)
        let router = SDKCommandRouter(
            commandTimeout: configuration.commandTimeout, cluster: cluster, registry: registry, node: node, replicas: replicas, follower: follower
        )
        let softwareUpdates = SDKSoftwareUpdates(
            clock: configuration.clock, readerRecords: readerRecords, updates: updates, registry: registry, metrics: metrics,
            lookup: lookup, releases: releases, router: router, recorder: recorder, logger: logger
        )
        self.sessions = SDKSessions(
            configuration: configuration, sessions: sessions, tokens: tokens, readerRecords: readerRecords, ownership: ownership, registry: registry,
            metrics: metrics, node: node, lookup: lookup, releases: releases, logger: logger
        )
        self.discovery = SDKDiscovery(
            clock: configuration.clock, sessions: sessions, readerRecords: readerRecords, locations: locations, bonds: bonds, updates: updates,
            registry: registry, lookup: lookup
        )
        self.connect = SDKConnect(
            clock: configuration.clock, readerRecords: readerRecords, connects: connects, registry: registry, metrics: metrics,
            fleet: fleet, follower: follower, lookup: lookup, releases: releases, bonds: bonds, softwareUpdates: softwareUpdates
        )
        self.easy = SDKEasyConnect(discovery: discovery, connect: connect)
        self.commands = SDKCommands(
            configuration: configuration, ownership: ownership, registry: registry, metrics: metrics, fleet: fleet, follower: follower,
            lookup: lookup, router: router, softwareUpdates: softwareUpdates, recorder: recorder, logger: logger
        )
        self.mobile = SDKMobile(
            clock: configuration.clock, readerRecords: readerRecords, locations: locations, tapToPay: tapToPay, bluetooth: bluetooth,
            registry: registry, lookup: lookup
        )
    }

    // MARK: sessions

    var openSession: SDKRoute.OpenSession {
        .task { [sessions] request, context throws(ServiceError) in try await sessions.openSession(request, context) }
    }

    var heartbeat: SDKRoute.Heartbeat {
        .task { [sessions] request, context throws(ServiceError) in try await sessions.heartbeat(request, context) }
    }

    var closeSession: SDKRoute.CloseSession {
        .task { [sessions] request, context throws(ServiceError) in try await sessions.closeSession(request, context) }
    }

    var subscribeEvents: SDKRoute.SubscribeEvents {
        .onLoop { [sessions] request, call, context in sessions.subscribeEvents(request, call: call, context: context) }
    }

    // MARK: discovery

    var discoverReaders: SDKRoute.DiscoverReaders {
        .task { [discovery] request, context throws(ServiceError) in try await discovery.discoverReaders(request, context) }
    }

    var cancelDiscovery: SDKRoute.CancelDiscovery {
        .task { [discovery] request, context throws(ServiceError) in try await discovery.cancelDiscovery(request, context) }
    }

    // MARK: connect

    var connectReader: SDKRoute.ConnectReader {
        .task { [connect] request, context throws(ServiceError) in try await connect.connectReader(request, context) }
    }

    var easyConnect: SDKRoute.EasyConnect {
        .task { [easy] request, context throws(ServiceError) in try await easy.easyConnect(request, context) }
    }

    var disconnectReader: SDKRoute.DisconnectReader {
        .task { [connect] request, context throws(ServiceError) in
            try await connect.lookup.answering(token: request.sessionToken, context) { () async throws(ServiceError) in
                try await connect.disconnectReader(request, context)
            }
        }
    }

    // MARK: commands

    var collectPaymentMethod: SDKRoute.CollectPaymentMethod {
        .task(arriving: { [commands] request, context in commands.collectArrived(request, context) }) { [commands] request, ticket, context throws(ServiceError) in
            try await commands.collectPaymentMethod(request, ticket: ticket, context)
        }
    }

    var confirmPaymentIntent: SDKRoute.ConfirmPaymentIntent {
        .task { [commands] request, context throws(ServiceError) in try await commands.confirmPaymentIntent(request, context) }
    }

    var installAvailableUpdate: SDKRoute.InstallAvailableUpdate {
        .task { [commands] request, context throws(ServiceError) in try await commands.installAvailableUpdate(request, context) }
    }

    var setReaderDisplay: SDKRoute.SetReaderDisplay {
        .onLoop { [commands] request, call, context in commands.setReaderDisplay(request, call, context) }
    }

    var clearReaderDisplay: SDKRoute.ClearReaderDisplay {
        .onLoop { [commands] request, call, context in commands.clearReaderDisplay(request, call, context) }
    }

    var cancelCollectPaymentMethod: SDKRoute.CancelCollectPaymentMethod {
        .onLoop { [commands] request, call, context in commands.cancelCollectPaymentMethod(request, call, context) }
    }

    var rebootReader: SDKRoute.RebootReader {
        .onLoop { [commands] request, call, context in commands.rebootReader(request, call, context) }
    }

    var cancelReaderSoftwareUpdate: SDKRoute.CancelReaderSoftwareUpdate {
        .onLoop { [commands] request, call, context in commands.cancelReaderSoftwareUpdate(request, call, context) }
    }

    // MARK: mobile (Tap to Pay, Bluetooth)

    var discoverTapToPayReader: SDKRoute.DiscoverTapToPayReader {
        .task { [mobile] request, context throws(ServiceError) in try await mobile.discoverTapToPayReader(request, context) }
    }

    var connectTapToPayReader: SDKRoute.ConnectTapToPayReader {
        .task { [mobile] request, context throws(ServiceError) in try await mobile.connectTapToPayReader(request, context) }
    }

    var completeTapToPayDeviceSetup: SDKRoute.CompleteTapToPayDeviceSetup {
        .task { [mobile] request, context throws(ServiceError) in try await mobile.completeTapToPayDeviceSetup(request, context) }
    }

    var connectBluetoothReader: SDKRoute.ConnectBluetoothReader {
        .task { [mobile] request, context throws(ServiceError) in try await mobile.connectBluetoothReader(request, context) }
    }
}
