import Synchronization

/// Runs services side by side for the life of a process and shuts them down in reverse
/// order: the last service listed winds down first, and each one is asked only once the
/// services after it have returned (the listener drains before the store it uses goes).
///
/// The shutdown starts when ``requestShutdown()`` is called (a signal) or when any service
/// returns or throws on its own (a failure: the others are wound down the same way).
/// Services that depend on another wait for it themselves (the listener waits for the
/// store to be up); the group does not order their starts.
///
/// The model is swift-service-lifecycle's `LifecycleGroup`, without its task-local
/// graceful-shutdown plumbing: each service gets its shutdown ``Latch`` in its context.
public final class LifecycleGroup: Sendable {
    /// What the group reports while it runs.
    public enum Event: Sendable {
        case started(service: String)
        /// Every service has said it started.
        case allStarted
        /// The shutdown began: `cause` is nil when it was requested, else the failure.
        case shuttingDown(cause: ServiceFailure?)
        case stopped(service: String)
    }

    private let services: [any LifecyclePart]
    private let observe: @Sendable (Event) -> Void
    private let requested = Latch()

    public init(_ services: [any LifecyclePart], observe: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.services = services
        self.observe = observe
    }

    /// Starts the shutdown (later calls, and calls before ``run()``, are fine).
    public func requestShutdown() { requested.set() }

    /// Runs every service until the shutdown has finished; returns the failures (empty when
    /// every service started, ran and wound down without one).
    public func run() async -> [ServiceFailure] {
        let shutdowns = services.map { _ in Latch() }
        let started = Mutex(Set<Int>())
        let count = services.count
        return await withTaskGroup(of: Ending.self) { group in
            for (index, service) in services.enumerated() {
                let context = ServiceContext(shutdown: shutdowns[index]) { [observe] in
                    let (first, all) = started.withLock { started -> (Bool, Bool) in
                        let first = started.insert(index).inserted
                        return (first, first && started.count == count)
                    }
                    guard first else { return }
                    observe(.started(service: service.name))
                    if all { observe(.allStarted) }
                }
                group.addTask {
                    do {
                        try await service.run(context)
                        return .service(index, nil)
                    } catch {
                        return .service(index, error)
                    }
                }
            }
            group.addTask { [requested] in
                _ = await requested.wait()
                return .requested
            }

            var running = Set(services.indices)
            var failures: [ServiceFailure] = []
            func record(_ ending: Ending?) {
                guard case .service(let index, let error)? = ending else { return }
                running.remove(index)
                let name = services[index].name
                let hadStarted = started.withLock { $0.contains(index) }
                if let error {
                    failures.append(ServiceFailure(service: name, hadStarted: hadStarted, error: error))
                } else if !shutdowns[index].isSet {
                    failures.append(ServiceFailure(service: name, hadStarted: hadStarted, error: ServiceEndedEarly()))
                }
                observe(.stopped(service: name))
            }

            // Serve until the shutdown is asked for or a service ends on its own.
            let first = await group.next()
            record(first)
            observe(.shuttingDown(cause: failures.first))
            requested.set()
            for index in services.indices.reversed() where running.contains(index) {
                shutdowns[index].set()
                while running.contains(index) {
                    record(await group.next())
                }
            }
            group.cancelAll()
            return failures
        }
    }

    private enum Ending: Sendable {
        case service(Int, (any Error)?)
        case requested
    }
}

/// A service that failed to start, failed while running, or returned before it was asked to.
public struct ServiceFailure: Error, CustomStringConvertible, Sendable {
    public let service: String
    /// Whether the service had said it started.
    public let hadStarted: Bool
    public let error: any Error

    public var description: String { hadStarted ? "\(service) failed: \(error)" : "cannot start \(service): \(error)" }
}

/// A service's `run` returned although no shutdown was asked for.
public struct ServiceEndedEarly: Error, CustomStringConvertible, Sendable {
    public var description: String { "it stopped on its own before a shutdown was asked for" }
}
