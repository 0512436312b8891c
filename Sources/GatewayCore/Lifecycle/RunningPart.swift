/// One ``LifecyclePart`` run on its own, outside a ``LifecycleGroup``: for tests and tools
/// that start a service, use it, and stop it.
///
///     let running = try await RunningPart.start(host)
///     …
///     try await running.stop()
///
/// The service's `run` is the one task this value holds; ``stop()`` asks it to wind down and
/// waits for it to return, so nothing of the service outlives the call.
public final class RunningPart: Sendable {
    public let name: String
    private let shutdown: Latch
    private let task: Task<Void, any Error>

    private init(name: String, shutdown: Latch, task: Task<Void, any Error>) {
        self.name = name
        self.shutdown = shutdown
        self.task = task
    }

    /// Runs `service` until it says it started, and returns it running. Throws the service's
    /// error when its start failed (after its `run` returned), or ``ServiceEndedEarly`` when it
    /// returned without starting.
    public static func start(_ service: any LifecyclePart) async throws -> RunningPart {
        let shutdown = Latch()
        let startedOrEnded = Latch()
        let started = Latch()
        let context = ServiceContext(shutdown: shutdown) {
            started.set()
            startedOrEnded.set()
        }
        let task = Task {
            defer { startedOrEnded.set() }
            try await service.run(context)
        }
        _ = await startedOrEnded.wait()
        guard started.isSet else {
            try await task.value
            throw ServiceEndedEarly()
        }
        return RunningPart(name: service.name, shutdown: shutdown, task: task)
    }

    /// Asks the service to wind down and waits until its `run` returned; rethrows its error.
    public func stop() async throws {
        shutdown.set()
        try await task.value
    }
}
