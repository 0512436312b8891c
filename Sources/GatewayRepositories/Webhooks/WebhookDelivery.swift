/// One delivery claimed from the queue (`webhook_deliveries`, migration 25): the event to POST,
/// where, signed with what, and how many attempts it has had (this one included).
public struct WebhookDelivery: Sendable, Hashable {
    /// The queue row's id.
    public var id: Int64
    public var endpointID: String
    public var url: String
    /// The endpoint's `whsec_` secret, the HMAC key of the signature.
    public var secret: String
    public var event: EventRecord
    /// Attempts so far, this one included (1 for the first).
    public var attempt: Int
    /// When the delivery was queued (the event's creation, or the resend's).
    public var queuedUnixMs: Int64

    public init(id: Int64, endpointID: String, url: String, secret: String, event: EventRecord, attempt: Int, queuedUnixMs: Int64) {
        self.id = id
        self.endpointID = endpointID
        self.url = url
        self.secret = secret
        self.event = event
        self.attempt = attempt
        self.queuedUnixMs = queuedUnixMs
    }
}

/// What a failed attempt did to its delivery and endpoint.
public enum WebhookFailureOutcome: Sendable, Hashable {
    /// Due again at the time given.
    case retrying
    /// The delivery was queued longer than the retry window: given up (state `failed`).
    case gaveUp
    /// The endpoint had failed for the whole retry window: disabled (`failing`), its pending
    /// deliveries given up, `webhook_endpoint.disabled` written.
    case endpointDisabled
    /// The delivery was no longer pending (delivered or given up by another replica).
    case alreadyFinished
}

/// The queue as one endpoint's metrics see it.
public struct WebhookQueueSummary: Sendable, Hashable {
    public var endpointID: String
    /// Pending deliveries.
    public var pending: Int
    /// Pending deliveries that have failed at least once.
    public var retrying: Int
    /// Age of the oldest pending delivery, in seconds (0 when none).
    public var oldestPendingSeconds: Double

    public init(endpointID: String, pending: Int, retrying: Int, oldestPendingSeconds: Double) {
        self.endpointID = endpointID
        self.pending = pending
        self.retrying = retrying
        self.oldestPendingSeconds = oldestPendingSeconds
    }
}
