/// One `NOTIFY` received on a channel the client LISTENs to, or a resubscription marker.
public struct PostgresNotification: Sendable, Equatable {
    /// The channel name as given to `NOTIFY`.
    public var channel: String
    /// The payload (empty when none was given, and for a resubscription marker).
    public var payload: String
    /// The process id of the server backend that sent it (0 for a resubscription marker).
    public var senderPID: Int32
    /// True for the marker ``PostgresClient/listen(_:)`` yields after the shared listener
    /// connection broke and LISTENs again: notifications sent meanwhile were lost, so re-read
    /// whatever state the channel announces.
    public var isResubscription: Bool

    public init(channel: String, payload: String, senderPID: Int32, isResubscription: Bool = false) {
        self.channel = channel
        self.payload = payload
        self.senderPID = senderPID
        self.isResubscription = isResubscription
    }

    /// The marker yielded on `channel` once its LISTEN is in place again after a break.
    public static func resubscription(channel: String) -> PostgresNotification {
        PostgresNotification(channel: channel, payload: "", senderPID: 0, isResubscription: true)
    }
}
