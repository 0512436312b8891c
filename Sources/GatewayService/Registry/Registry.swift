import Foundation
import GatewayCore
import GatewayDomain
import GatewayRegistry
import GatewayRepositories
import GatewayWire
import Synchronization

/// The I/O shell of ``ReaderRegistry``: the one lock over the machine and the tables from
/// its ids to this process's calls and completions.
///
/// Every method takes the lock once, feeds the machine an event, resolves the ids the
/// machine answered with (under the lock: table lookups only), releases the lock, and
/// then performs the actions: sends, call ends, completions. Nothing is sent and no
/// continuation is resumed while the lock is held.
///
/// The registry is closed: the rest of the service calls its named events (the files of
/// this folder), never the machine. ``act(_:)``, ``feed(_:)``, ``query(_:)`` and
/// ``state`` are the shell's own; `make lint` fails when a file outside this folder
/// reaches them.
final class Registry: Sendable {
    /// A reader waiting for an admin to register the code it shows: told the reader and its
    /// credential, it returns the reader once its link is online (nil when the link ended first).
    typealias RegistrationHandler = @Sendable (ReaderRecord, String) async -> ReaderGatewayV1.Reader?
    /// A `DiscoverReaders` call waiting for the store's readers.
    typealias DiscoveryAnswer = CheckedContinuation<Result<[ReaderRecord], ServiceError>, Never>

    struct State {
        var machine = ReaderRegistry()
        var linkCalls: [LinkID: ServerCall] = [:]
        var streams: [EventStreamID: SessionEventStream] = [:]
        var completions: [CommandKey: CommandCompletion] = [:]
        var registrationHandlers: [LinkID: RegistrationHandler] = [:]
        var discoveryAnswers: [String: DiscoveryAnswer] = [:]
        /// Drains waiting for no relayed command to be pending (``whenNoCommandsPending(_:)``).
        var idleWaiters: [Latch] = []

        /// The live stream of `session` and the number of the last event numbered for it:
        /// an answer that must follow those events waits on the stream for them
        /// (``SessionEventStream/afterEvents(through:_:)``). Nil: no live stream, or no event yet.
        func lastEvent(of session: RegistrySession?) -> (stream: SessionEventStream, through: UInt64)? {
            guard let session, let id = session.stream, let stream = streams[id], session.nextSequence > 1 else { return nil }
            return (stream, session.nextSequence - 1)
        }
    }

    /// Work resolved under the lock, performed after it.
    enum Work {
        case send(SessionEventStream, SessionNotice)
        case complete(CommandCompletion, CommandOutcome)
        /// Send `cancelCollect` down the link's call.
        case cancelCollect(ServerCall)
        /// Tell the reader on the link's call which lane owns it now, at which generation.
        case tellOwner(ServerCall, lane: String, generation: OwnershipGeneration)
        case end(ServerCall, ReaderGatewayV1.Status)
        /// End a session's event stream, and the answers waiting for its events.
        case endStream(SessionEventStream, ReaderGatewayV1.Status)
    }

    let state = Mutex(State())
    /// Whether a drain waits in ``State/idleWaiters`` (read without the lock on every command's end).
    let idleWatched = Atomic<Bool>(false)
    /// The command timeout, for the message of a command that timed out.
    let commandTimeout: Duration
    /// Where the registry reads the time (the services' clock).
    let clock: any ServiceClock

    init(commandTimeout: Duration, clock: any ServiceClock = SystemServiceClock()) {
        self.commandTimeout = commandTimeout
        self.clock = clock
    }

    /// Feeds one event that answers with actions, performs them after the lock, and
    /// returns the event's own result.
    @discardableResult
    func act<T>(_ event: (inout ReaderRegistry) -> (T, [RegistryAction])) -> T {
        let (result, work) = state.withLock { state -> (T, [Work]) in
            let (result, actions) = event(&state.machine)
            return (result, Self.resolve(actions, in: &state, timeout: commandTimeout))
        }
        Self.perform(work)
        commandsMayHaveEnded()
        return result
    }

    /// Feeds one event that answers with at most one action (an event to deliver, on the
    /// heartbeat and progress paths): no array is built.
    @discardableResult
    func act<T>(one event: (inout ReaderRegistry) -> (T, RegistryAction?)) -> T {
        let (result, work) = state.withLock { state -> (T, Work?) in
            let (result, action) = event(&state.machine)
            return (result, action.flatMap { Self.resolve($0, in: &state, timeout: commandTimeout) })
        }
        if let work { Self.perform(work) }
        commandsMayHaveEnded()
        return result
    }

    /// Feeds one event whose only result is its actions.
    func apply(_ event: (inout ReaderRegistry) -> [RegistryAction]) {
        act { ((), event(&$0)) }
    }

    /// Feeds one event whose only result is at most one action.
    func apply(one event: (inout ReaderRegistry) -> RegistryAction?) {
        act(one: { ((), event(&$0)) })
    }

    /// Feeds one event that answers with no action.
    @discardableResult
    func feed<T>(_ event: (inout ReaderRegistry) -> T) -> T {
        state.withLock { event(&$0.machine) }
    }

    /// Asks the machine a question (no action follows).
    func query<T>(_ body: (ReaderRegistry) -> T) -> T {
        state.withLock { body($0.machine) }
    }

    // MARK: resolving and performing

    static func resolve(_ actions: [RegistryAction], in state: inout State, timeout: Duration) -> [Work] {
        var work: [Work] = []
        work.reserveCapacity(actions.count)
        for action in actions {
            if let item = resolve(action, in: &state, timeout: timeout) { work.append(item) }
        }
        return work
    }

    /// What one action comes to: at most one piece of work (nil: its call or completion is
    /// already gone, or an event waits in the buffer).
    static func resolve(_ action: RegistryAction, in state: inout State, timeout: Duration) -> Work? {
        switch action {
        case .sendEvent(let event, let id):
            guard let stream = state.streams[id] else { return nil }
            if stream.call.isFinished {
                // The peer ended the stream a moment ago: the event waits for the next one.
                state.streams[id] = nil
                state.machine.eventUndelivered(event, stream: id, session: stream.session)
                return nil
            }
            return .send(stream, event)
        case .failCommand(let key, let failure):
            guard let completion = state.completions.removeValue(forKey: key) else { return nil }
            return .complete(completion, .failed(.command(failure, timeout: timeout)))
        case .cancelOnReader(let link):
            guard let call = state.linkCalls[link] else { return nil }
            return .cancelCollect(call)
        case .tellOwner(let link, let lane, let generation):
            guard let call = state.linkCalls[link] else { return nil }
            return .tellOwner(call, lane: lane, generation: generation)
        case .closeLink(let link, let closure):
            guard let call = state.linkCalls.removeValue(forKey: link) else { return nil }
            return .end(call, ServiceError.linkClosed(closure).status)
        case .endStream(let id, let ending):
            guard let stream = state.streams.removeValue(forKey: id) else { return nil }
            let status = switch ending {
            case .sessionEnded: ReaderGatewayV1.Status.ok
            case .replicaFenced: ServiceError.replicaFenced.status
            case .sessionMoved: ServiceError.sessionMoved.status
            }
            return .endStream(stream, status)
        }
    }

    static func perform(_ work: [Work]) {
        for item in work { perform(item) }
    }

    static func perform(_ item: Work) {
        switch item {
        case .send(let stream, let notice): stream.send(notice.message)
        case .complete(let completion, let outcome): completion(outcome)
        case .cancelCollect(let call):
            call.send(Gateway.downlink(.cancelCollect(.init()), id: 0, session: SessionID(""), timeout: .zero))
        case .tellOwner(let call, let lane, let generation):
            var owner = ReaderGatewayV1.OwnerChanged()
            owner.laneLabel = lane
            owner.generation = UInt64(generation.rawValue)
            var downlink = ReaderGatewayV1.ReaderDownlink()
            downlink.message = .ownerChanged(owner)
            call.send(downlink)
        case .end(let call, let status): call.end(status)
        case .endStream(let stream, let status):
            stream.releaseWaiting()
            stream.call.end(status)
        }
    }
}
