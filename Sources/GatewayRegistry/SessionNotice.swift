import GatewayDomain
import GatewayWire

/// Something a session is told, as the registry decides it under the shell's lock: numbered,
/// timed, and kept as plain values. The shell turns it into its wire message
/// (``message``) after the lock is released; nothing here is built while it is held.
public struct SessionNotice: Equatable, Sendable {
    public var sequence: UInt64
    public var atUnixMs: Int64
    public var event: Event

    public enum Event: Equatable, Sendable {
        /// The session lost the reader.
        case disconnected(ReaderLoss)
        /// The owned reader's status changed on its link here: the store's description of the
        /// reader, and its live status.
        case statusChanged(described: ReaderGatewayV1.Reader, status: LinkStatus)
        /// The owned reader's status, announced by the replica holding its link (built by the
        /// caller from the store's record before it fed the registry).
        case remoteStatus(ReaderGatewayV1.ReaderStatusChanged)
        /// The owned reader reported how far its software update went.
        case updateProgress(reader: ReaderID, progress: Float)
        /// A software update event (built by the caller before it fed the registry).
        case softwareUpdate(ReaderGatewayV1.SessionEvent.Event)
    }

    public init(sequence: UInt64, atUnixMs: Int64, event: Event) {
        self.sequence = sequence
        self.atUnixMs = atUnixMs
        self.event = event
    }

    /// The loss this notice tells of, if it is one.
    public var loss: ReaderLoss? {
        if case .disconnected(let loss) = event { loss } else { nil }
    }

    /// The wire message, built outside the registry's lock.
    public var message: ReaderGatewayV1.SessionEvent {
        var message = ReaderGatewayV1.SessionEvent()
        message.sequence = sequence
        message.atUnixMs = atUnixMs
        switch event {
        case .disconnected(let loss):
            message.event = .disconnected(loss.message)
        case .statusChanged(let described, let status):
            var changed = ReaderGatewayV1.ReaderStatusChanged()
            changed.reader = status.render(described, nowUnixMs: atUnixMs)
            message.event = .readerStatusChanged(changed)
        case .remoteStatus(let changed):
            message.event = .readerStatusChanged(changed)
        case .updateProgress(let reader, let progress):
            var update = ReaderGatewayV1.UpdateProgress()
            update.readerID = reader.rawValue
            update.progress = progress
            message.event = .updateProgress(update)
        case .softwareUpdate(let event):
            message.event = event
        }
        return message
    }
}

/// A session's loss of a reader: why, at which generation, and who took it.
public struct ReaderLoss: Hashable, Sendable {
    public var reader: ReaderID
    public var reason: ReaderGatewayV1.DisconnectReason
    /// The generation the session owned the reader at (the one that ended).
    public var generation: OwnershipGeneration
    /// The lane and device that took the reader (a `replaced` loss only).
    public var takenByLane: String?
    public var takenByPosDeviceID: String?

    public init(reader: ReaderID, reason: ReaderGatewayV1.DisconnectReason, generation: OwnershipGeneration, takenByLane: String?, takenByPosDeviceID: String?) {
        self.reader = reader
        self.reason = reason
        self.generation = generation
        self.takenByLane = takenByLane
        self.takenByPosDeviceID = takenByPosDeviceID
    }

    /// The `ReaderDisconnected` event.
    public var message: ReaderGatewayV1.ReaderDisconnected {
        ReaderRegistry.disconnected(reader: reader, reason: reason, generation: generation, takenByLane: takenByLane, takenByPosDeviceID: takenByPosDeviceID)
    }
}
