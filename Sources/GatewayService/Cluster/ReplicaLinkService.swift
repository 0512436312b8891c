import GatewayRepositories
import GatewayWire

/// The replica link surface (`ReplicaLink/*`, on the internal listener, mutual TLS):
/// commands relayed by sessions on other replicas to readers whose link is here, and
/// registrations typed on other replicas for codes shown here.
struct ReplicaLinkService: ReplicaLinkRoutes {
    /// The reader a relayed registration's credential belongs to.
    let credentials: any ReaderCredentials
    let registry: LiveRegistry
}
