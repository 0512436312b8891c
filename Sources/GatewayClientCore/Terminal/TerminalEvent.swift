import GatewayChannel
import GatewayWire

/// A reader as the latest discovery returned it, tagged with that discovery.
///
/// Pass it to ``TerminalClient/connectReader(_:failIfInUse:)``; a reader from an older
/// discovery is refused with `STALE_DISCOVERY` (Stripe: never cache reader objects).
public struct DiscoveredReader: Sendable, Equatable {
    /// The reader as discovery saw it.
    public let reader: Reader
    /// The discovery it came from.
    public var discoveryID: String
    /// The reader as the gateway sent it (what the session holds once connected).
    let wire: ReaderGatewayV1.Reader

    init(wire: ReaderGatewayV1.Reader, discoveryID: String) {
        reader = Reader(wire)
        self.wire = wire
        self.discoveryID = discoveryID
    }

    public var id: String { reader.id }
    public var label: String { reader.label }
    public var serialNumber: String { reader.serialNumber }
    public var isOnline: Bool { reader.isOnline }
}

/// An open point-of-sale session.
public struct TerminalSession: Sendable, Equatable {
    /// The session's public id (what admins see as the owner).
    public var sessionID: String
    /// The secret that authorises the session's calls and resumes it after a dropped
    /// connection. Keep it in memory only.
    public var resumeToken: String
    /// How long the session lives without a call or heartbeat.
    public var lease: Duration
    /// Whether this was a resume of a live session.
    public var resumed: Bool
    /// The reader the session owns (after a resume), if any.
    public var connectedReader: Reader? { wireReader.map(Reader.init) }
    /// ``connectedReader`` as the gateway sent it.
    var wireReader: ReaderGatewayV1.Reader?

    init(sessionID: String, resumeToken: String, lease: Duration, resumed: Bool, connectedReader: ReaderGatewayV1.Reader?) {
        self.sessionID = sessionID
        self.resumeToken = resumeToken
        self.lease = lease
        self.resumed = resumed
        wireReader = connectedReader
    }
}

/// Why the session lost its reader, and for a takeover, who took it.
public struct DisconnectInfo: Sendable, Equatable {
    public var readerID: String
    /// Stripe's DisconnectReason plus the gateway's own (`replaced`, `adminReleased`, ...).
    public var reason: DisconnectReason
    /// For `replaced`: the lane label of the session that took the reader.
    public var takenByLaneLabel: String
    /// For `replaced`: the pos device id of the session that took the reader.
    public var takenByPosDeviceID: String
    public var message: String
    /// The ownership generation that ended.
    public var generation: UInt64

    /// A loss the client reports itself (no takeover: nobody took the reader).
    init(readerID: String, reason: ReaderGatewayV1.DisconnectReason, generation: UInt64, message: String) {
        self.readerID = readerID
        self.reason = DisconnectReason(reason)
        takenByLaneLabel = ""
        takenByPosDeviceID = ""
        self.message = message
        self.generation = generation
    }

    init(_ message: ReaderGatewayV1.ReaderDisconnected) {
        readerID = message.readerID
        reason = DisconnectReason(message.reason)
        takenByLaneLabel = message.takenByLaneLabel
        takenByPosDeviceID = message.takenByPosDeviceID
        self.message = message.message
        generation = message.generation
    }
}

/// What happens to a session, in order.
public enum TerminalEvent: Sendable, Equatable {
    /// The session lost its reader (Stripe's `didDisconnect`), with the reason and, for a
    /// takeover, the lane that took it.
    case disconnected(DisconnectInfo)
    /// The connected reader's status changed (activity, network, battery).
    case readerStatusChanged(Reader)
    /// The gateway is waiting for the reader to come back.
    case reconnectStarted(readerID: String)
    /// The reader came back and is still this session's.
    case reconnectSucceeded(readerID: String)
    /// The reader did not come back.
    case reconnectFailed(readerID: String, TerminalError)
    /// Software update progress, 0 to 1 (Stripe's `didReportReaderSoftwareUpdateProgress`).
    case updateProgress(readerID: String, progress: Float)
    /// The connected reader has a software update available (Stripe's
    /// `didReportAvailableUpdate`); install it with ``TerminalClient/installAvailableUpdate()``.
    /// Its `required` is true once its required_at has passed: it then installs at the next connect.
    case updateAvailable(readerID: String, ReaderSoftwareUpdate)
    /// A software update started installing (Stripe's `didStartInstallingUpdate`): during
    /// ``TerminalClient/connectReader(_:failIfInUse:)`` for a required update, or after
    /// ``TerminalClient/installAvailableUpdate()``. ``TerminalClient/cancelReaderSoftwareUpdate()`` stops it.
    case updateStarted(readerID: String, ReaderSoftwareUpdate)
    /// The connection to the gateway dropped; the client is resuming the session.
    case connectionLost(TerminalError)
    /// The session was resumed on a new connection (its reader kept when the lease held).
    case sessionResumed(TerminalSession)
    /// The session is gone (lease ran out, closed); open a new one.
    case sessionEnded(TerminalError)
}

/// Callbacks for a ``TerminalClient`` (the delegate style of Stripe's SDKs); every method
/// has an empty default. Called on the main actor, in event order, as Stripe's SDKs call theirs
/// on the main queue: a `@MainActor` view model conforms as it is. A command that fails because
/// the reader was lost returns its error only after the delegate heard the loss.
@MainActor
public protocol TerminalDelegate: AnyObject, Sendable {
    /// The session lost its reader.
    func terminal(_ terminal: TerminalClient, didDisconnect info: DisconnectInfo)
    /// The connected reader's status changed.
    func terminal(_ terminal: TerminalClient, didChangeReaderStatus reader: Reader)
    /// The connected reader has a software update available.
    func terminal(_ terminal: TerminalClient, didReportAvailableUpdate update: ReaderSoftwareUpdate)
    /// A software update started installing (cancel it with ``TerminalClient/cancelReaderSoftwareUpdate()``).
    func terminal(_ terminal: TerminalClient, didStartInstallingUpdate update: ReaderSoftwareUpdate)
    /// Progress of the installing update, 0 to 1.
    func terminal(_ terminal: TerminalClient, didReportReaderSoftwareUpdateProgress progress: Float)
    /// The Tap to Pay reader's link was lost and the client reconnects by itself (Stripe's
    /// `onReaderReconnectStarted`), and why: `appInBackground`, or `unknown` when the
    /// connection to the gateway dropped. ``TerminalClient/cancelReconnect()`` is the
    /// Cancelable. The `reconnectStarted` event follows the same path.
    func terminal(_ terminal: TerminalClient, didStartReconnect readerID: String, reason: DisconnectReason)
    /// Every event, including the ones above.
    func terminal(_ terminal: TerminalClient, didReceive event: TerminalEvent)
}

extension TerminalDelegate {
    public func terminal(_ terminal: TerminalClient, didDisconnect info: DisconnectInfo) {}
    public func terminal(_ terminal: TerminalClient, didChangeReaderStatus reader: Reader) {}
    public func terminal(_ terminal: TerminalClient, didReportAvailableUpdate update: ReaderSoftwareUpdate) {}
    public func terminal(_ terminal: TerminalClient, didStartInstallingUpdate update: ReaderSoftwareUpdate) {}
    public func terminal(_ terminal: TerminalClient, didReportReaderSoftwareUpdateProgress progress: Float) {}
    public func terminal(_ terminal: TerminalClient, didStartReconnect readerID: String, reason: DisconnectReason) {}
    public func terminal(_ terminal: TerminalClient, didReceive event: TerminalEvent) {}
}

/// Whether the session is connected to a reader (Stripe's ConnectionStatus).
public enum ConnectionStatus: Sendable, Equatable {
    case notConnected
    /// A ConnectReader is running (it may be installing a required update).
    case connecting
    case connected
}
