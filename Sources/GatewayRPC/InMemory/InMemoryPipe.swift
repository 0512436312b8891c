import GatewayChannel
import GatewayTransport

/// One end of an in-memory byte pipe: what is written at one end arrives at the other, in
/// order, as a later task of the pipe's one event loop (never inside the write, so neither
/// side is entered while it writes). Closing one end closes both: the other end's handler
/// hears `closedByPeer` after the bytes written before the close, this end's `closedLocally`.
/// Never movable to another loop.
///
/// `@unchecked Sendable`: every `var` is read and written only on ``loop``'s thread (both
/// ends live on it; ``ConnectionTransport``'s methods are called there).
final class InMemoryPipeEnd: ConnectionTransport, ClientTransportConnection, @unchecked Sendable {
    let loop: EventLoop
    /// How the log names this end's peer.
    let peerName: String
    /// Hears this end: its bytes and its close (loop-confined; dropped once closed).
    var handler: (any TransportHandler)?
    /// The other end, until either closes (loop-confined).
    private var peer: InMemoryPipeEnd?
    private var closed = false

    private init(loop: EventLoop, peerName: String) {
        self.loop = loop
        self.peerName = peerName
    }

    /// Two ends joined back to back on `loop`.
    static func pair(on loop: EventLoop, names: (client: String, server: String)) -> (client: InMemoryPipeEnd, server: InMemoryPipeEnd) {
        let client = InMemoryPipeEnd(loop: loop, peerName: names.server)
        let server = InMemoryPipeEnd(loop: loop, peerName: names.client)
        client.peer = server
        server.peer = client
        return (client, server)
    }

    func write(_ bytes: [UInt8]) -> Bool {
        guard !closed, let peer else { return false }
        loop.execute { peer.deliver(bytes) }
        return true
    }

    /// Closes both ends; graceful or not, what was written before arrives first.
    func close(graceful: Bool) {
        guard !closed else { return }
        closed = true
        let peer = self.peer
        self.peer = nil
        loop.execute { [self] in finish(.closedLocally) }
        if let peer { loop.execute { peer.peerClosed() } }
    }

    var isMovable: Bool { false }

    func move(to target: EventLoop, then: @escaping @Sendable () -> Void) -> Bool { false }

    private func deliver(_ bytes: [UInt8]) {
        guard !closed, let handler else { return }
        bytes.withUnsafeBytes { handler.transportReceived($0) }
    }

    private func peerClosed() {
        guard !closed else { return }
        closed = true
        peer = nil
        finish(.closedByPeer)
    }

    /// The handler's last call; the end lets go of it.
    private func finish(_ reason: CloseReason) {
        let handler = self.handler
        self.handler = nil
        handler?.transportClosed(reason, peer: peerName)
    }
}
