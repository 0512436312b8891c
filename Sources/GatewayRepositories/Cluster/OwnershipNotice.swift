import GatewayDomain
import GatewayPostgres

/// One change of a reader's owner or link, as announced by migration 0004's trigger on
/// ``channel``.
///
/// The payload is `<reader_id> <generation> <session_id or -> <link_epoch> <link_node or ->`.
/// A notice is a hint that the row changed (a replica that missed some re-reads the rows with
/// ``ClusterStore/ownershipSnapshot(_:)``); the row is the truth.
public struct OwnershipNotice: Sendable, Equatable {
    /// The channel the trigger notifies.
    public static let channel = "reader_gateway_ownership"

    public var reader: ReaderID
    public var generation: OwnershipGeneration
    /// The owning session after the change (nil: nobody).
    public var session: SessionID?
    public var epoch: LinkEpoch
    /// The node holding the link after the change (nil: none).
    public var node: String?

    public init(reader: ReaderID, generation: OwnershipGeneration, session: SessionID?, epoch: LinkEpoch, node: String?) {
        self.reader = reader
        self.generation = generation
        self.session = session
        self.epoch = epoch
        self.node = node
    }

    /// Parses a payload; nil when it is not one the trigger writes (for example the empty
    /// payload of a resubscription marker). Fields after the fifth are ignored: a later release
    /// may append some, and this one must keep reading its notices (docs/architecture.md,
    /// "Schema changes across releases").
    public init?(payload: String) {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 5, !fields[0].isEmpty, !fields[2].isEmpty, !fields[4].isEmpty,
              let generation = Int64(fields[1]), let epoch = Int64(fields[3])
        else { return nil }
        self.reader = ReaderID(String(fields[0]))
        self.generation = OwnershipGeneration(generation)
        self.session = fields[2] == "-" ? nil : SessionID(String(fields[2]))
        self.epoch = LinkEpoch(epoch)
        self.node = fields[4] == "-" ? nil : String(fields[4])
    }

    /// The payload the trigger writes for this notice.
    public var payload: String {
        "\(reader.rawValue) \(generation.rawValue) \(session?.rawValue ?? "-") \(epoch.rawValue) \(node ?? "-")"
    }
}
