import Foundation
import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRepositories
import GatewayWire
import Synchronization

/// The gateway's services: the reader link, the SDK surface and the fleet admin
/// surface, over one registry of live readers and sessions.
///
/// Shared state is one `Mutex<GatewayState>`: each handler decides under the
/// lock, then does its I/O (store calls, sends) outside it. Sends go through
/// ``ServerCall``, which hops to the connection's event loop, so no loop ever
/// waits for the store.
final class Gateway: Sendable {
    let configuration: ServiceConfiguration
    let database: GatewayDatabase
    let ownership: OwnershipStore
    let metrics: GatewayMetrics
    let state = Mutex(GatewayState())
    let logger = Logger(component: "service")
    /// This replica in the node registry (its id changes when it is fenced).
    let node: NodeIdentity
    let cluster: ClusterStore
    /// Connections to the other replicas' internal listeners.
    let replicas: ReplicaChannels
    let loops = EventLoopGroupBox()
    /// Set while draining or fenced: links that end now are handed over
    /// (detached, the owner keeps the reader), never reported lost.
    let handingOver = Atomic<Bool>(false)

    init(client: PostgresClient, configuration: ServiceConfiguration, metrics: GatewayMetrics) {
        self.configuration = configuration
        self.database = GatewayDatabase(client: client)
        self.ownership = OwnershipStore(client: client)
        self.cluster = ClusterStore(client: client)
        self.node = NodeIdentity(name: configuration.nodeName)
        self.replicas = ReplicaChannels(group: loops)
        self.metrics = metrics
    }

    /// Every method path the gateway serves.
    var routes: [String: MethodHandler] {
        var routes: [String: MethodHandler] = [:]
        for (path, handler) in sdkRoutes + adminRoutes { routes[path] = handler }
        routes[ReaderGatewayV1.ReaderLink.attach.path] = .bidirectional { [self] requests, call, context in
            await attach(requests: requests, call: call, context: context)
        }
        routes[ReaderGatewayV1.Sdk.subscribeEvents.path] = .serverStreaming { [self] request, call, context in
            await subscribeEvents(request, call: call, context: context)
        }
        return routes
    }

    // MARK: events to sessions

    /// Delivers `event` to a session's event stream, or buffers it until the
    /// session subscribes. Call with the lock held (it only enqueues).
    static func deliver(_ event: ReaderGatewayV1.SessionEvent.Event, to session: inout SessionState) {
        var message = ReaderGatewayV1.SessionEvent()
        message.sequence = session.nextSequence
        session.nextSequence += 1
        message.atUnixMs = Gateway.nowUnixMs()
        message.event = event
        if let call = session.eventCall, !call.isFinished {
            call.send(message)
        } else {
            session.bufferedEvents.append(message)
            if session.bufferedEvents.count > 256 { session.bufferedEvents.removeFirst() }
        }
    }

    static func nowUnixMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: ownership actions

    /// Runs the actions an ownership decision returned: tells displaced
    /// sessions (event first), arms their next-command failure, cancels
    /// interrupted commands on the reader.
    func run(
        _ actions: [OwnershipAction],
        reader: ReaderID,
        generation: OwnershipGeneration,
        reason: ReaderGatewayV1.DisconnectReason,
        takenBy: SessionState? = nil
    ) {
        var cancels: [(ReaderLinkState, [PendingCommand])] = []
        state.withLock { state in
            if let index = state.links.index(forKey: reader), state.links.values[index].knownGeneration < generation {
                state.links.values[index].knownGeneration = generation
            }
            for action in actions {
                switch action {
                case .notifyDisplaced(let session, _, _):
                    _ = state.withSession(id: session) { displaced in
                        guard displaced.reader == reader else { return }
                        let event = Gateway.disconnected(
                            reader: reader, reason: reason, generation: OwnershipGeneration(max(0, generation.rawValue - 1)),
                            takenByLane: takenBy?.lane.rawValue, takenByPosDeviceID: takenBy?.posDeviceID
                        )
                        Gateway.deliver(.disconnected(event), to: &displaced)
                        displaced.reader = nil
                        displaced.home = nil
                    }
                case .failNextCommand(let session, let refusal):
                    // An admin release is not another session's doing: say "not connected".
                    let effective: OwnershipRefusal = reason == .adminReleased ? .notConnected : refusal
                    _ = state.withSession(id: session) { $0.pendingRefusal = effective }
                case .cancelCommand(let command):
                    guard var link = state.links[reader] else { continue }
                    let interrupted = link.pending.filter { $0.value.session == command.session }
                    for id in interrupted.keys { link.pending[id] = nil }
                    state.links[reader] = link
                    cancels.append((link, Array(interrupted.values)))
                case .recordHistory:
                    break
                }
            }
            // Other sessions here that still hold the reader lost it to changes made on
            // other replicas in between (the store already decided): tell them now, the
            // event before their next command fails, as if displaced by the new owner.
            if let takenBy {
                for (token, session) in state.sessions where session.reader == reader && session.id != takenBy.id && session.generation < generation {
                    let event = Gateway.disconnected(
                        reader: reader, reason: .replaced, generation: session.generation,
                        takenByLane: takenBy.lane.rawValue, takenByPosDeviceID: takenBy.posDeviceID
                    )
                    Gateway.deliver(.disconnected(event), to: &state.sessions[token]!)
                    state.sessions[token]?.reader = nil
                    state.sessions[token]?.home = nil
                    state.sessions[token]?.pendingRefusal = .connectedToAnotherSession
                }
            }
        }
        for (link, interrupted) in cancels {
            for pending in interrupted {
                pending.complete(.failed(ServiceError.refusal(.connectedToAnotherSession)))
            }
            var command = ReaderGatewayV1.ReaderCommand()
            command.commandID = 0
            command.command = .cancelCollect(.init())
            var downlink = ReaderGatewayV1.ReaderDownlink()
            downlink.message = .command(command)
            link.call.send(downlink)
        }
    }

    static func describe(_ reason: ReaderGatewayV1.DisconnectReason) -> String {
        switch reason {
        case .requested: "the session disconnected the reader"
        case .replaced: "another session connected to the reader"
        case .readerLost: "the reader went offline (network lost, powered off or heartbeats stopped)"
        case .rebootRequested: "the reader rebooted"
        case .adminReleased: "a fleet admin released the reader"
        case .sessionExpired: "the session's lease ran out"
        case .readerUnregistered: "the reader was unregistered"
        default: "the reader disconnected"
        }
    }

    /// Tells the reader which lane owns it now.
    func tellOwner(_ reader: ReaderID, lane: String, generation: OwnershipGeneration) {
        let call = state.withLock { $0.links[reader]?.call }
        var owner = ReaderGatewayV1.OwnerChanged()
        owner.laneLabel = lane
        owner.generation = UInt64(generation.rawValue)
        var downlink = ReaderGatewayV1.ReaderDownlink()
        downlink.message = .ownerChanged(owner)
        call?.send(downlink)
    }
}
