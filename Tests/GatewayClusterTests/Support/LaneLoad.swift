import GatewayClient
import GatewayWire
import Synchronization

/// A lane working its own reader in a loop (cart displays, and every fourth command a
/// collect), as a point-of-sale app would: a command that fails with a retryable status
/// (UNAVAILABLE) is sent again until it succeeds or `retryWindow` passes; a lane that lost
/// its reader connects to it again when `reconnect` is set. Anything else is a lost command.
/// With `displaysOnly`, no collect: the load writes nothing to PostgreSQL (a display is fenced
/// by a read), so an asynchronous failover cannot lose any of its marks.
final class LaneLoad: Sendable {
    let lane: ClusterLane
    let readerID: String
    let location: String
    let retryWindow: Duration
    let reconnect: Bool
    let displaysOnly: Bool

    struct Command: Sendable {
        var started: ContinuousClock.Instant
        var finished: ContinuousClock.Instant
        var attempts: Int
    }

    struct Stats: Sendable {
        var completed: [Command] = []
        /// Failures that were retried, by error.
        var retryable: [String: Int] = [:]
        /// Commands that neither completed nor failed retryably (or never succeeded on retry).
        var lost: [String] = []
        /// Times the lane found its reader gone and connected again.
        var reconnects: [String] = []
        /// Generations the lane was granted by its connects.
        var granted: [UInt64] = []
        var inFlight: ContinuousClock.Instant?
        /// The latest failure, with its wall-clock time.
        var lastError: String?
        /// The command in flight and when it started (wall clock).
        var inFlightCommand: String?
    }
    private let stats = Mutex(Stats())
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let stopping = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    init(lane: ClusterLane, readerID: String, location: String, retryWindow: Duration = .seconds(30), reconnect: Bool = false, displaysOnly: Bool = false) {
        self.displaysOnly = displaysOnly
        self.lane = lane
        self.readerID = readerID
        self.location = location
        self.retryWindow = retryWindow
        self.reconnect = reconnect
    }

    var snapshot: Stats { stats.withLock { $0 } }

    func noteGranted(_ generation: UInt64) { stats.withLock { $0.granted.append(generation) } }

    func start() {
        let task = Task { [self] in await run() }
        self.task.withLock { $0 = task }
    }

    /// Lets the command in flight finish (with its retries) for up to `grace`, then cancels
    /// it; a command still unfinished then counts as lost.
    func stop(grace: Duration = .seconds(20)) async {
        stopping.store(true, ordering: .relaxed)
        guard let task = task.withLock({ $0 }) else { return }
        let done = await eventuallyIgnoringErrors(timeout: grace, interval: .milliseconds(50)) { stats.withLock { $0.inFlight == nil } }
        if !done {
            let label = lane.label
            stats.withLock { $0.lost.append("\(wallClock()) \(label): \($0.inFlightCommand ?? "a command") still unfinished \(grace) after the load was told to stop") }
            task.cancel()
        }
        // A call that ignores its deadline and the cancellation is left behind.
        if await !eventuallyIgnoringErrors(timeout: .seconds(5), { self.finished.load(ordering: .relaxed) }) {
            let label = lane.label
            stats.withLock { $0.lost.append("\(wallClock()) \(label): \($0.inFlightCommand ?? "a command") did not return even when cancelled") }
        }
    }

    /// The end of the first command that started at or after `instant` and completed.
    func firstCompletion(startedAfter instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        stats.withLock { $0.completed.first { $0.started >= instant }?.finished }
    }

    private func run() async {
        defer { finished.store(true, ordering: .relaxed) }
        for index in 0..<10_000_000 {
            if stopping.load(ordering: .relaxed) || Task.isCancelled { return }
            await runCommand(collect: !displaysOnly && index % 4 == 3)
            try? await Task.sleep(for: .milliseconds(30))
        }
    }

    private func runCommand(collect: Bool) async {
        let started = ContinuousClock.now
        let kind = "\(collect ? "collect" : "display") started \(wallClock())"
        stats.withLock {
            $0.inFlight = started
            $0.inFlightCommand = kind
        }
        defer {
            stats.withLock {
                $0.inFlight = nil
                $0.inFlightCommand = nil
            }
        }
        let deadline = started + retryWindow
        var backoff = Duration.milliseconds(100)
        var lastError = ""
        for attempt in 1...1_000 {
            do {
                if collect {
                    let result = try await lane.collect()
                    guard result.paymentMethod?.last4 == "4242" else {
                        stats.withLock { $0.lost.append("\(wallClock()) \(lane.label): collect returned \(result)") }
                        return
                    }
                } else {
                    try await lane.display()
                }
                let finished = ContinuousClock.now
                stats.withLock { $0.completed.append(Command(started: started, finished: finished, attempts: attempt)) }
                return
            } catch let error as TerminalError {
                let wire = error.underlying
                lastError = error.description
                stats.withLock { $0.lastError = "\(wallClock()) \(wire.codeName)/\(wire.reasonName)" }
                if error.isRetryableInCluster {
                    stats.withLock { $0.retryable["\(wire.codeName)/\(wire.reasonName)", default: 0] += 1 }
                } else if reconnect && (error.code == .notConnectedToReader || error.code == .readerConnectedToAnotherDevice) {
                    stats.withLock { $0.reconnects.append("\(wire.reasonName)") }
                    do {
                        let response = try await lane.connect(readerID, location: location, failIfInUse: false)
                        noteGranted(response.generation)
                    } catch let connectError as TerminalError where connectError.isRetryableInCluster {
                        stats.withLock { $0.retryable["connect \(connectError.underlying.codeName)/\(connectError.underlying.reasonName)", default: 0] += 1 }
                    } catch {
                        stats.withLock { $0.lost.append("\(wallClock()) \(lane.label): reconnect failed: \(error)") }
                        return
                    }
                } else {
                    stats.withLock { $0.lost.append("\(wallClock()) \(lane.label): \(collect ? "collect" : "display") failed with \(error) (attempt \(attempt))") }
                    return
                }
            } catch {
                stats.withLock { $0.lost.append("\(wallClock()) \(lane.label): \(error)") }
                return
            }
            if ContinuousClock.now + backoff > deadline { break }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(1))
        }
        stats.withLock { $0.lost.append("\(wallClock()) \(lane.label): \(collect ? "collect" : "display") not done within \(retryWindow) of retries; last: \(lastError)") }
    }
}
