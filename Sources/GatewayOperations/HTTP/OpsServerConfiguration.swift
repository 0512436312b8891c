/// How the ops endpoint listens and how much it tolerates from a client.
public struct OpsServerConfiguration: Sendable {
    /// The address to bind: an IPv4 or IPv6 literal. `0.0.0.0` in a container
    /// so the kubelet can probe it; `127.0.0.1` elsewhere.
    public var host: String
    /// The TCP port; 0 picks a free one (see ``OpsServer/start()``).
    public var port: Int
    /// Connections served at once. A new connection over it closes the oldest one still
    /// sending its request (a slowloris), never the newcomer: a flood cannot fail the kubelet's
    /// probes (`ConnectionAdmission`).
    public var maxConnections: Int
    /// Connections served at once from one client address; a new one over it closes that
    /// address's oldest connection still sending its request.
    public var maxConnectionsPerSource: Int
    /// The largest request head (request line and headers) accepted; larger gets 431.
    public var maxHeadBytes: Int
    /// Time from accept to a fully written response; a client that sends its
    /// request slower (slowloris) gets 408 and is closed.
    public var requestDeadline: Duration
    /// How long the server keeps reading and discarding after a response,
    /// so that the client reads the response before the connection closes.
    public var lingerDuration: Duration

    public init(
        host: String = "127.0.0.1",
        port: Int = 9090,
        maxConnections: Int = 64,
        maxConnectionsPerSource: Int = 16,
        maxHeadBytes: Int = 8192,
        requestDeadline: Duration = .seconds(5),
        lingerDuration: Duration = .seconds(1)
    ) {
        self.host = host
        self.port = port
        self.maxConnections = maxConnections
        self.maxConnectionsPerSource = maxConnectionsPerSource
        self.maxHeadBytes = maxHeadBytes
        self.requestDeadline = requestDeadline
        self.lingerDuration = lingerDuration
    }
}
