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
final class ReplicaChannels: Sendable {
    private struct State {
        var certificates: InternalCertificates?
        var channels: [String: Task<ClientChannel, any Error>] = [:]
    }

    private let state = Mutex(State())
    private let group: EventLoopGroupBox
    private let logger = Logger(component: "replica-link")

    init(group: EventLoopGroupBox) { self.group = group }

    /// Called once the internal certificates exist.
    func configure(_ certificates: InternalCertificates) {
        state.withLock { $0.certificates = certificates }
    }

    /// The open channel to `address` (`host:port`), connecting if needed.
    func channel(to address: String) async throws -> ClientChannel {
        let task = try state.withLock { state throws -> Task<ClientChannel, any Error> in
            if let existing = state.channels[address] { return existing }
            guard let certificates = state.certificates else {
                throw RPCError(.readerLinkMoved, "the replica link is not ready yet; retry")
            }
            guard let peer = GatewayAddress(parsing: address) else {
                throw RPCError(.internal, "replica address \(address.debugDescription) is not host:port")
            }
            let configuration = ClientChannelConfiguration(
                host: peer.host, port: peer.port, trustedCAPath: certificates.caPath, clientCertificate: certificates.client,
                keepalive: .init(interval: .seconds(5), timeout: .seconds(5)), connectTimeout: .seconds(3)
            )
            let group = self.group.group
            let task = Task { try await ClientChannel.connect(configuration, group: group) }
            state.channels[address] = task
            return task
        }
        do {
            let channel = try await task.value
            if !channel.state.acceptsCalls {
                forget(address, task)
                return try await self.channel(to: address)
            }
            return channel
        } catch {
            forget(address, task)
            throw error
        }
    }

    private func forget(_ address: String, _ task: Task<ClientChannel, any Error>) {
        state.withLock { state in
            if let current = state.channels[address], current == task { state.channels[address] = nil }
        }
    }

    /// Closes every channel.
    func closeAll() async {
        let tasks = state.withLock { state -> [Task<ClientChannel, any Error>] in
            defer { state.channels.removeAll() }
            return Array(state.channels.values)
        }
        // A channel that never opened has nothing to close (its opener heard the error).
        for task in tasks { (try? await task.value)?.close() }
    }
}

/// The event loop group replica channels use (set when the host starts).
final class EventLoopGroupBox: Sendable {
    private let storage = Mutex<EventLoopGroup?>(nil)
    var group: EventLoopGroup? { storage.withLock { $0 } }
    func set(_ group: EventLoopGroup?) { storage.withLock { $0 = group } }
}
