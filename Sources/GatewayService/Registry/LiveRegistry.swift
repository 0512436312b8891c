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
/// One entry, ``handle(_:)``: it takes the lock once, feeds the ``State`` an ``Event`` (the
/// machine answers with actions, whose ids are resolved to calls and completions: table
/// lookups only), releases the lock, performs the ``Work`` (sends, call ends, completions,
/// discovery answers, drain latches) and returns the event's ``Answer``. Nothing is sent, no
/// message is built and no continuation is resumed while the lock is held.
///
/// The registry is closed: the rest of the service calls its named events (the files of
/// this folder), each a thin wrapper that builds an ``Event`` and reads the ``Answer``.
/// ``handle(_:)`` and ``state`` are the shell's own; `make lint` fails when a file outside
/// this folder reaches them, or when this folder takes the lock anywhere but in ``handle(_:)``.
final class LiveRegistry: Sendable {
    /// A reader waiting for an admin to register the code it shows: told the reader and its
    /// credential, it returns the reader once its link is online (nil when the link ended first).
    typealias RegistrationHandler = @Sendable (ReaderRecord, String) async -> ReaderGatewayV1.Reader?
    /// A `DiscoverReaders` call waiting for the store's readers.
    typealias DiscoveryAnswer = CheckedContinuation<Result<[ReaderRecord], ServiceError>, Never>

    let state = Mutex(State())
    /// The command timeout, for the message of a command that timed out.
    let commandTimeout: Duration
    /// Where the registry reads the time (the services' clock).
    let clock: any ServiceClock

    init(commandTimeout: Duration, clock: any ServiceClock = SystemServiceClock()) {
        self.commandTimeout = commandTimeout
        self.clock = clock
    }

    /// The registry's one entry: feeds `event` under the lock, performs the work it comes to
    /// after the lock, and returns its answer.
    @discardableResult
    func handle(_ event: Event) -> Answer {
        let (answer, work) = state.withLock { $0.handle(event, timeout: commandTimeout) }
        for item in work { Self.perform(item) }
        return answer
    }

    static func perform(_ item: Work) {
        switch item {
        case .send(let stream, let notice): stream.send(notice.message)
        case .retell(let call, let notice): call.send(notice.message)
        case .complete(let completion, let outcome): completion(outcome)
        case .cancelCollect(let call):
            call.send(Gateway.downlink(.cancelCollect(.init()), id: 0, session: SessionID(""), timeout: .zero))
        case .sendCancel(let call, let id, let session, let timeout):
            call.send(Gateway.downlink(.cancelCollect(.init()), id: id, session: session, timeout: timeout))
        case .tellOwner(let call, let lane, let generation):
            var owner = ReaderGatewayV1.OwnerChanged()
            owner.laneLabel = lane
            owner.generation = UInt64(generation.rawValue)
            var downlink = ReaderGatewayV1.ReaderDownlink()
            downlink.message = .ownerChanged(owner)
            call.send(downlink)
        case .end(let call, let error): call.end(error?.status ?? .ok)
        case .endAs(let call, let status): call.end(status)
        case .endStream(let stream, let error):
            stream.releaseWaiting()
            stream.call.end(error?.status ?? .ok)
        case .replaceStream(let stream, let call):
            stream.releaseWaiting()
            if stream.call !== call { stream.call.end() }
        case .releaseStream(let stream): stream.releaseWaiting()
        case .answerDiscovery(let answer, let result): answer.resume(returning: result)
        case .setLatch(let latch): latch.set()
        }
    }
}
