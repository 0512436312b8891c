import Foundation
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
    }

    /// Work resolved under the lock, performed after it.
    enum Work {
        case send(SessionEventStream, ReaderGatewayV1.SessionEvent)
        case complete(CommandCompletion, CommandOutcome)
        case downlink(ServerCall, ReaderGatewayV1.ReaderDownlink)
        case end(ServerCall, ReaderGatewayV1.Status)
    }

    let state = Mutex(State())
    /// The command timeout, for the message of a command that timed out.
    let commandTimeout: Duration

    init(commandTimeout: Duration) {
        self.commandTimeout = commandTimeout
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
        return result
    }

    /// Feeds one event that answers with no action.
    @discardableResult
    func update<T>(_ event: (inout ReaderRegistry) -> T) -> T {
        state.withLock { event(&$0.machine) }
    }

    /// Reads the machine (no action follows).
    func read<T>(_ body: (ReaderRegistry) -> T) -> T {
        state.withLock { body($0.machine) }
    }

    // MARK: resolving and performing

    static func resolve(_ actions: [RegistryAction], in state: inout State, timeout: Duration) -> [Work] {
        var work: [Work] = []
        work.reserveCapacity(actions.count)
        for action in actions { resolve(action, in: &state, timeout: timeout, into: &work) }
        return work
    }

    static func resolve(_ action: RegistryAction, in state: inout State, timeout: Duration, into work: inout [Work]) {
        switch action {
        case .sendEvent(let event, let id):
            guard let stream = state.streams[id] else { return }
            if stream.call.isFinished {
                // The peer ended the stream a moment ago: the event waits for the next one.
                state.streams[id] = nil
                state.machine.eventUndelivered(event, stream: id, session: stream.session)
                return
            }
            work.append(.send(stream, event))
        case .failCommand(let key, let failure):
            guard let completion = state.completions.removeValue(forKey: key) else { return }
            work.append(.complete(completion, .failed(.command(failure, timeout: timeout))))
        case .cancelOnReader(let link):
            guard let call = state.linkCalls[link] else { return }
            work.append(.downlink(call, Gateway.downlink(.cancelCollect(.init()), id: 0, session: SessionID(""), timeout: .zero)))
        case .tellOwner(let link, let lane, let generation):
            guard let call = state.linkCalls[link] else { return }
            var owner = ReaderGatewayV1.OwnerChanged()
            owner.laneLabel = lane
            owner.generation = UInt64(generation.rawValue)
            var downlink = ReaderGatewayV1.ReaderDownlink()
            downlink.message = .ownerChanged(owner)
            work.append(.downlink(call, downlink))
        case .closeLink(let link, let closure):
            guard let call = state.linkCalls.removeValue(forKey: link) else { return }
            work.append(.end(call, ServiceError.linkClosed(closure).status))
        case .endStream(let id, let fenced):
            guard let stream = state.streams.removeValue(forKey: id) else { return }
            let status = fenced
                ? ServiceError(.readerLinkMoved, "this replica was fenced off; resume the session with its resume token").status
                : ReaderGatewayV1.Status.ok
            work.append(.end(stream.call, status))
        }
    }

    static func perform(_ work: [Work]) {
        for item in work { perform(item) }
    }

    static func perform(_ item: Work) {
        switch item {
        case .send(let stream, let event): stream.send(event)
        case .complete(let completion, let outcome): completion(outcome)
        case .downlink(let call, let downlink): call.send(downlink)
        case .end(let call, let status): call.end(status)
        }
    }
}
