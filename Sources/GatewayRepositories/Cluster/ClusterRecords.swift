import Foundation
import GatewayDomain
import GatewayPostgres

/// One running gateway replica as registered in `gateway_nodes`.
public struct NodeRecord: Sendable, Equatable {
    /// The node id: the replica's name and a random suffix, new for every process start.
    public var id: String
    /// Where other replicas dial this one (its internal listener, `host:port`).
    public var internalAddress: String
    public var startedAt: Date
    /// The last heartbeat, by the database's clock.
    public var heartbeatAt: Date
    /// The replica's release (nil: a build from before releases were recorded).
    public var version: String?

    public init(id: String, internalAddress: String, startedAt: Date, heartbeatAt: Date, version: String? = nil) {
        self.id = id
        self.internalAddress = internalAddress
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
        self.version = version
    }
}

/// Where a reader's live link is: the replica to relay its commands to.
public struct ReaderHome: Sendable, Equatable {
    /// The link's epoch; the home replica refuses a relay naming another one.
    public var epoch: LinkEpoch
    /// The node holding the link.
    public var node: String
    /// That node's internal address.
    public var internalAddress: String

    public init(epoch: LinkEpoch, node: String, internalAddress: String) {
        self.epoch = epoch
        self.node = node
        self.internalAddress = internalAddress
    }
}

/// A reader's ownership row as stored now, for reconciling a replica's memory with the truth.
public struct OwnershipSnapshot: Sendable, Equatable {
    public var reader: ReaderID
    public var generation: OwnershipGeneration
    /// The owning session (nil: nobody owns the reader).
    public var session: SessionID?
    public var laneLabel: String?
    public var epoch: LinkEpoch
    /// The node holding the link of ``epoch`` (nil: no node holds it: offline, detached, or
    /// attached by a gateway that does not register).
    public var node: String?
    /// Whether the reader counts as online (a detached link still does, until the offline
    /// bound passes).
    public var online: Bool
    /// Whether the link is detached (its node died or drained) and waiting for a re-attach.
    public var detached: Bool

    public init(
        reader: ReaderID,
        generation: OwnershipGeneration,
        session: SessionID?,
        laneLabel: String?,
        epoch: LinkEpoch,
        node: String?,
        online: Bool,
        detached: Bool = false
    ) {
        self.reader = reader
        self.generation = generation
        self.session = session
        self.laneLabel = laneLabel
        self.epoch = epoch
        self.node = node
        self.online = online
        self.detached = detached
    }
}
