import GatewayCore
import GatewayRPC
import GatewayTransport
import Synchronization

/// Connections from this replica to the others' internal listeners, one per
/// peer address, opened on first use and replaced when they close or drain
/// (a draining channel finishes the calls it carries; none is ever closed
/// under calls in flight, except at shutdown).
///
/// Mutual TLS with the internal CA: the peer's certificate must chain to it
/// (and name its advertised address), and this replica presents its own.
///
/// One ``State`` value behind one lock, fed through ``feed(_:)``; connecting, waiting and
/// closing happen after the lock.
final class ReplicaChannels: Sendable {
    /// The channels as a value, generic over the connect task so that it is tested with plain values.
    struct State<Connect: Equatable & Sendable>: Sendable {
        enum Event: Sendable {
            /// The internal certificates exist.
            case configured(InternalCertificates)
            /// A caller wants the channel to `address`.
            case wanted(String)
            /// The connect for `address` was started (filed under the same lock as its `.open`).
            case opening(String, Connect)
            /// The channel `task` opened for `address` failed or stopped accepting calls.
            case failed(String, Connect)
            /// The replica shuts down.
            case closedAll
        }

        enum Action: Sendable {
            case none
            /// Wait for this connect (already started).
            case use(Connect)
            /// Start connecting with `configuration` and file the connect (``Event/opening(_:_:)``) before the lock is released.
            case open(String, ClientChannelConfiguration)
            /// Fail the caller.
            case refuse(RPCError)
            /// Close each channel these connects opened.
            case close([Connect])
        }

        private var certificates: InternalCertificates?
        private var channels: [String: Connect] = [:]

        mutating func handle(_ event: Event) -> Action {
            switch event {
            case .configured(let certificates):
                self.certificates = certificates
                return .none
            case .wanted(let address):
                if let existing = channels[address] { return .use(existing) }
                guard let certificates else { return .refuse(RPCError(.readerLinkMoved, "the replica link is not ready yet; retry")) }
                guard let peer = GatewayAddress(parsing: address) else {
                    return .refuse(RPCError(.internal, "replica address \(address.debugDescription) is not host:port"))
                }
                return .open(address, ClientChannelConfiguration(
                    host: peer.host, port: peer.port, trustedCAPath: certificates.caPath, clientCertificate: certificates.client,
                    keepalive: .init(interval: .seconds(5), timeout: .seconds(5)), connectTimeout: .seconds(3)
                ))
            case .opening(let address, let connect):
                channels[address] = connect
                return .use(connect)
            case .failed(let address, let connect):
                if channels[address] == connect { channels[address] = nil }
                return .none
            case .closedAll:
                defer { channels.removeAll() }
                return .close(Array(channels.values))
            }
        }
    }

    private typealias Connect = Task<ClientChannel, any Error>

    private let state = Mutex(State<Connect>())
    private let group: EventLoopGroupBox
    private let logger = Logger(component: "replica-link")

    init(group: EventLoopGroupBox) { self.group = group }

    /// Called once the internal certificates exist.
    func configure(_ certificates: InternalCertificates) {
        _ = feed(.configured(certificates))
    }

    /// The open channel to `address` (`host:port`), connecting if needed.
    func channel(to address: String) async throws -> ClientChannel {
        let task: Connect
        switch feed(.wanted(address)) {
        case .use(let connect): task = connect
        case .refuse(let error): throw error
        case .none, .open, .close: throw RPCError(.internal, "the replica channels answered a request for \(address) with no channel")
        }
        do {
            let channel = try await task.value
            if !channel.state.acceptsCalls {
                _ = feed(.failed(address, task))
                return try await self.channel(to: address)
            }
            return channel
        } catch {
            _ = feed(.failed(address, task))
            throw error
        }
    }

    /// Closes every channel.
    func closeAll() async {
        guard case .close(let tasks) = feed(.closedAll) else { return }
        // A channel that never opened has nothing to close (its opener heard the error).
        for task in tasks { (try? await task.value)?.close() }
    }

    /// Feeds one event under the lock. An `.open` is started and filed before the lock is
    /// released (starting a task does no I/O), so one connect serves every caller of an address.
    private func feed(_ event: State<Connect>.Event) -> State<Connect>.Action {
        state.withLock { state in
            let action = state.handle(event)
            guard case .open(let address, let configuration) = action else { return action }
            let group = self.group.group
            return state.handle(.opening(address, Task { try await ClientChannel.connect(configuration, group: group) }))
        }
    }
}
