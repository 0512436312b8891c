import GatewayChannel
import Synchronization

/// A ``ClientTransport`` whose connections end at a ``ScriptedGateway`` in this process: no
/// socket, no TLS, no event loop. Each connect opens a new connection to the gateway (a
/// reconnect after ``ScriptedGateway/dropConnections()`` is a second one).
struct InMemoryClientTransport: ClientTransport {
    let gateway: ScriptedGateway

    func makeExecutor() -> QueueExecutor {
        QueueExecutor(label: "client channel")
    }

    func connect(_ configuration: ClientChannelConfiguration, on executor: QueueExecutor, delegate: any ClientTransportDelegate) {
        InMemoryClientEnd(gateway: gateway, executor: executor, delegate: delegate).open()
    }
}

/// The client's end of one in-memory connection: what the channel writes goes to the gateway's
/// queue, what the gateway sends comes back on the channel's executor, in order.
final class InMemoryClientEnd: ClientTransportConnection {
    let gateway: ScriptedGateway
    let executor: QueueExecutor
    let delegate: any ClientTransportDelegate
    /// The gateway's id for this connection, and whether either side closed it.
    private let state = Mutex<(id: Int, closed: Bool)>((0, false))

    init(gateway: ScriptedGateway, executor: QueueExecutor, delegate: any ClientTransportDelegate) {
        self.gateway = gateway
        self.executor = executor
        self.delegate = delegate
    }

    /// Joins the gateway: the channel hears the connection active first, then the gateway's bytes.
    func open() {
        let id = gateway.accept(
            toClient: { [self] bytes in executor.execute { self.deliver(bytes) } },
            dropped: { [self] in peerClosed() }
        )
        state.withLock { $0.id = id }
        executor.execute { [self] in delegate.transportActive(self, info: ChannelConnectionInfo(peer: "scripted gateway #\(id)")) }
        gateway.start(id)
    }

    func write(_ bytes: [UInt8]) -> Bool {
        let (id, closed) = state.withLock { ($0.id, $0.closed) }
        guard !closed else { return false }
        gateway.received(bytes, on: id)
        return true
    }

    func close(graceful: Bool) {
        let (id, wasClosed) = state.withLock { state in
            defer { state.closed = true }
            return (state.id, state.closed)
        }
        guard !wasClosed else { return }
        gateway.clientClosed(id)
        executor.execute { [self] in delegate.transportClosed(.closedLocally) }
    }

    /// The gateway dropped the connection (called on the gateway's queue).
    private func peerClosed() {
        let wasClosed = state.withLock { state in
            defer { state.closed = true }
            return state.closed
        }
        guard !wasClosed else { return }
        executor.execute { [self] in delegate.transportClosed(.closedByPeer(detail: "the scripted gateway dropped the connection")) }
    }

    /// Bytes from the gateway, on the executor; none after the connection closed.
    private func deliver(_ bytes: [UInt8]) {
        guard !state.withLock({ $0.closed }) else { return }
        bytes.withUnsafeBytes { delegate.transportReceived($0) }
    }
}
