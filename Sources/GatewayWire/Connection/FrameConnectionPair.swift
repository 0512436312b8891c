/// Two ``FrameConnection``s wired back to back in memory, for tests and
/// benchmarks: a client and a server, with a shared fake clock.
///
/// ``exchange()`` moves outbound bytes both ways until neither side has any,
/// collecting each side's events. No sockets, no threads.
public struct FrameConnectionPair: Sendable {
    /// The client end.
    public var client: FrameConnection
    /// The server end.
    public var server: FrameConnection
    /// The fake clock both ends see.
    public var now: WireTime

    public init(
        client: ConnectionConfiguration = ConnectionConfiguration(role: .client),
        server: ConnectionConfiguration = ConnectionConfiguration(role: .server),
        now: WireTime = WireTime(nanoseconds: 1_000_000_000)
    ) {
        self.now = now
        self.client = FrameConnection(configuration: client, now: now)
        self.server = FrameConnection(configuration: server, now: now)
    }

    /// Delivers pending bytes both ways until both sides are quiet (at most
    /// `maxRounds` round trips) and returns the events each side saw.
    @discardableResult
    public mutating func exchange(maxRounds: Int = 64) -> (client: [ConnectionEvent], server: [ConnectionEvent]) {
        var clientEvents: [ConnectionEvent] = []
        var serverEvents: [ConnectionEvent] = []
        for _ in 0..<maxRounds {
            guard client.hasOutbound || server.hasOutbound else { break }
            let toServer = client.takeOutbound()
            if !toServer.isEmpty { serverEvents += server.receive(toServer, now: now) }
            let toClient = server.takeOutbound()
            if !toClient.isEmpty { clientEvents += client.receive(toClient, now: now) }
        }
        return (clientEvents, serverEvents)
    }

    /// Advances the clock and ticks both sides, then exchanges bytes.
    @discardableResult
    public mutating func advance(by duration: Duration) -> (client: [ConnectionEvent], server: [ConnectionEvent]) {
        now = now.adding(duration)
        let clientEvents = client.tick(now: now)
        let serverEvents = server.tick(now: now)
        let exchanged = exchange()
        return (clientEvents + exchanged.client, serverEvents + exchanged.server)
    }
}
