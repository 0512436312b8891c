/// How a ``FrameConnection`` behaves: its role, its limits, keepalive and
/// connection management (modelled on gRPC's keepalive.md and gRFC A8/A9).
public struct ConnectionConfiguration: Sendable {
    /// Which end of the connection this is.
    public enum Role: Sendable, Hashable {
        /// Starts calls (a lane, a reader, gatewayctl); sends the preface.
        case client
        /// Accepts calls (the gateway).
        case server
    }

    /// Client-side keepalive: ping a quiet connection, close it when the ping
    /// goes unanswered.
    public struct Keepalive: Sendable, Hashable {
        /// Send a PING after this long without receiving anything.
        public var interval: Duration
        /// Close the connection (KEEPALIVE_TIMEOUT) when the PING is not
        /// answered within this.
        public var timeout: Duration
        /// Ping even when no call is open.
        public var permitWithoutCalls: Bool

        public init(interval: Duration, timeout: Duration = .seconds(20), permitWithoutCalls: Bool = true) {
            self.interval = interval
            self.timeout = timeout
            self.permitWithoutCalls = permitWithoutCalls
        }
    }

    /// Server-side policing of the peer's pings (gRFC A8): a PING sooner than
    /// `minimumInterval` after the previous one is a strike; more than
    /// `maxStrikes` strikes end the connection with GOAWAY TOO_MANY_PINGS.
    public struct PingPolicy: Sendable, Hashable {
        /// The shortest interval allowed between the peer's pings.
        public var minimumInterval: Duration
        /// Strikes tolerated; the next one closes the connection.
        public var maxStrikes: Int
        /// Whether pings with no call open are acceptable at all.
        public var permitWithoutCalls: Bool

        public init(minimumInterval: Duration = .seconds(5), maxStrikes: Int = 2, permitWithoutCalls: Bool = true) {
            self.minimumInterval = minimumInterval
            self.maxStrikes = maxStrikes
            self.permitWithoutCalls = permitWithoutCalls
        }
    }

    /// This end's role.
    public var role: Role
    /// The limits this end announces and enforces.
    public var localSettings: ConnectionSettings
    /// Keepalive pings this end sends; nil for none.
    public var keepalive: Keepalive?
    /// How this end polices the peer's pings.
    public var pingPolicy: PingPolicy
    /// Send GOAWAY after this long with no open call (gRFC A9); nil for never.
    public var maxIdleTime: Duration?
    /// Send GOAWAY when the connection is this old (gRFC A9); nil for never.
    public var maxAge: Duration?
    /// After the max-age GOAWAY, close anyway after this long.
    public var maxAgeGrace: Duration
    /// Outbound MESSAGE bytes a stream may queue while it waits for
    /// flow-control credit; a send beyond it fails with RESOURCE_EXHAUSTED.
    public var maxQueuedBytesPerStream: Int
    /// Limits for control-frame payloads.
    public var decodingOptions: ProtobufDecodingOptions

    public init(
        role: Role,
        localSettings: ConnectionSettings = ConnectionSettings(),
        keepalive: Keepalive? = nil,
        pingPolicy: PingPolicy = PingPolicy(),
        maxIdleTime: Duration? = nil,
        maxAge: Duration? = nil,
        maxAgeGrace: Duration = .seconds(30),
        maxQueuedBytesPerStream: Int = 1 << 20,
        decodingOptions: ProtobufDecodingOptions = .init()
    ) {
        self.role = role
        self.localSettings = localSettings
        self.keepalive = keepalive
        self.pingPolicy = pingPolicy
        self.maxIdleTime = maxIdleTime
        self.maxAge = maxAge
        self.maxAgeGrace = maxAgeGrace
        self.maxQueuedBytesPerStream = maxQueuedBytesPerStream
        self.decodingOptions = decodingOptions
    }
}

/// A configuration held once and shared, by reference, by every connection made with it
/// (``FrameConnection/init(shared:now:)``): a server holding thousands of long-lived
/// connections (readers' links) keeps one copy instead of one inside each connection.
public final class SharedConnectionConfiguration: Sendable {
    public let configuration: ConnectionConfiguration

    public init(_ configuration: ConnectionConfiguration) {
        self.configuration = configuration
    }
}
