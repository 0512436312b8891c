import GatewayCore
import GatewayOperations
import GatewayPostgres
import GatewayRepositories
import GatewayWire
import Synchronization

/// The reader link surface (`ReaderLink/Attach`): readers authenticate or show
/// registration codes, go online in the registry, heartbeat, answer commands, and go
/// offline. It shares the registry and the store with the other surfaces.
final class ReaderLinkService: ReaderLinkRoutes, StoreFollowUps {
    let configuration: ServiceConfiguration
    /// Readers by serial number, and what their links report of themselves.
    let readerRecords: any ReaderRepository
    /// The reader a link's credential belongs to.
    let credentials: any ReaderCredentials
    /// The codes unregistered readers show.
    let codes: any RegistrationCodes
    /// Why mobile readers' links ended.
    let linkEndings: any MobileLinkEndings
    let ownership: OwnershipStore
    /// Attaches that arrive together (a reconnect storm) share a statement and a commit.
    let attaches: OwnershipAttachBatcher
    /// ... and their readers' lookups by serial, a statement.
    let serialLookups: ReaderSerialLookupBatcher<ReaderRecord>
    let registry: LiveRegistry
    let metrics: GatewayMetrics
    let node: NodeIdentity
    /// Where a reader's status is announced when its owner is on another replica.
    let follower: ClusterFollower
    /// Battery levels worth a store write, and the update rules' clock.
    let updates: SoftwareUpdateCatalog
    let logger = Logger(component: "service")
    /// Set while draining or fenced: links that end now are handed over
    /// (detached, the owner keeps the reader), never reported lost.
    let handingOver = Atomic<Bool>(false)

    init(
        configuration: ServiceConfiguration, readerRecords: any ReaderRepository, credentials: any ReaderCredentials,
        codes: any RegistrationCodes, linkEndings: any MobileLinkEndings, ownership: OwnershipStore, registry: LiveRegistry,
        metrics: GatewayMetrics, node: NodeIdentity, follower: ClusterFollower, updates: SoftwareUpdateCatalog
    ) {
        self.configuration = configuration
        self.readerRecords = readerRecords
        self.credentials = credentials
        self.codes = codes
        self.linkEndings = linkEndings
        self.ownership = ownership
        attaches = OwnershipAttachBatcher(store: ownership)
        serialLookups = ReaderSerialLookupBatcher(
            one: { serial throws(StoreError) in try await readerRecords.reader(serial: serial) },
            many: { serials throws(StoreError) in try await readerRecords.readers(serials: serials) }
        )
        self.registry = registry
        self.metrics = metrics
        self.node = node
        self.follower = follower
        self.updates = updates
    }

    var attach: ReaderLinkRoute.Attach {
        .task { [self] requests, call, context in
            // Going online (authentication, registration, the store) runs in this task, which
            // then hands the link to the connection's loop and returns: an attached reader
            // holds no task (see `attach`).
            await attach(requests: requests, call: call, context: context)
        }
    }
}
