/// One `NOTIFY` received on a channel the client LISTENs to.
public struct PostgresNotification: Sendable, Equatable {
    /// The channel name as given to `NOTIFY`.
    public var channel: String
    /// The payload (empty when none was given).
    public var payload: String
    /// The process id of the server backend that sent it.
    public var senderPID: Int32

    public init(channel: String, payload: String, senderPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderPID = senderPID
    }
}
