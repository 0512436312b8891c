import GatewayCore
import GatewayTestKit
import Synchronization
import Testing

/// What the fake services did, in order.
private final class Journal: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

private struct Failed: Error, Equatable {}

/// A service that starts (or fails to), serves until asked to stop, then stops: after
/// `holdStop` is set when one is given.
private struct FakePart: LifecyclePart {
    let name: String
    let journal: Journal
    var failsToStart = false
    var endsOnItsOwn = false
    var holdStop: Latch?

    func run(_ context: ServiceContext) async throws {
        journal.append("\(name) start")
        if failsToStart { throw Failed() }
        context.started()
        if endsOnItsOwn { return }
        _ = await context.shutdown.wait()
        journal.append("\(name) asked")
        if let holdStop { _ = await holdStop.wait() }
        journal.append("\(name) stopped")
    }
}

/// What the group reported.
private final class Events: Sendable {
    private let events = Mutex<[String]>([])
    func record(_ event: LifecycleGroup.Event) {
        let line = switch event {
        case .started(let service): "started \(service)"
        case .allStarted: "all started"
        case .shuttingDown(let cause): "shutting down\(cause.map { " (\($0.service))" } ?? "")"
        case .stopped(let service): "stopped \(service)"
        }
        events.withLock { $0.append(line) }
    }
    var all: [String] { events.withLock { $0 } }
}

@Suite("LifecycleGroup: side by side, wound down in reverse order")
struct LifecycleGroupTests {
    @Test("a requested shutdown winds the services down last first; no failures")
    func requested() async {
        let journal = Journal()
        let events = Events()
        let group = LifecycleGroup(["store", "listener", "ops"].map { FakePart(name: $0, journal: journal) }, observe: events.record)
        let running = Task { await group.run() }
        #expect(await eventually { events.all.contains("all started") })
        group.requestShutdown()
        let failures = await running.value
        #expect(failures.isEmpty)
        #expect(journal.all.filter { $0.hasSuffix("stopped") } == ["ops stopped", "listener stopped", "store stopped"])
        #expect(events.all.suffix(4) == ["shutting down", "stopped ops", "stopped listener", "stopped store"])
    }

    @Test("a service is asked to stop only once every service after it has returned")
    func oneAfterAnother() async {
        let journal = Journal()
        let hold = Latch()
        let group = LifecycleGroup([
            FakePart(name: "store", journal: journal),
            FakePart(name: "listener", journal: journal, holdStop: hold),
        ])
        let running = Task { await group.run() }
        #expect(await eventually { journal.all.contains("listener start") && journal.all.contains("store start") })
        group.requestShutdown()
        #expect(await eventually { journal.all.contains("listener asked") })
        // The listener is still winding down: the store has not been asked.
        #expect(!journal.all.contains("store asked"))
        hold.set()
        #expect(await running.value.isEmpty)
        #expect(journal.all.suffix(3) == ["listener stopped", "store asked", "store stopped"])
    }

    @Test("a service that fails to start ends the group: the others wind down in reverse order and the failure is returned")
    func failedStart() async {
        let journal = Journal()
        let events = Events()
        let group = LifecycleGroup([
            FakePart(name: "ops", journal: journal),
            FakePart(name: "store", journal: journal, failsToStart: true),
            FakePart(name: "listener", journal: journal),
        ], observe: events.record)
        let failures = await group.run()
        #expect(failures.map(\.service) == ["store"])
        #expect(failures.first?.error as? Failed == Failed())
        #expect(journal.all.filter { $0.hasSuffix("stopped") } == ["listener stopped", "ops stopped"])
        #expect(events.all.contains("shutting down (store)"))
        #expect(!events.all.contains("all started"))
    }

    @Test("a service that returns on its own is a failure and ends the group")
    func endedEarly() async {
        let journal = Journal()
        let group = LifecycleGroup([
            FakePart(name: "store", journal: journal),
            FakePart(name: "listener", journal: journal, endsOnItsOwn: true),
        ])
        let failures = await group.run()
        #expect(failures.map(\.service) == ["listener"])
        #expect(failures.first?.error is ServiceEndedEarly)
        #expect(journal.all.last == "store stopped")
    }

    @Test("a shutdown requested before the group runs still starts and stops every service")
    func requestedBeforeRun() async {
        let journal = Journal()
        let group = LifecycleGroup(["a", "b"].map { FakePart(name: $0, journal: journal) })
        group.requestShutdown()
        #expect(await group.run().isEmpty)
        #expect(Set(journal.all) == ["a start", "b start", "a asked", "b asked", "a stopped", "b stopped"])
    }
}

@Suite("RunningPart: one service run alone")
struct RunningServiceTests {
    @Test("start returns once the service started; stop winds it down and waits for its run")
    func startThenStop() async throws {
        let journal = Journal()
        let running = try await RunningPart.start(FakePart(name: "host", journal: journal))
        #expect(journal.all == ["host start"])
        try await running.stop()
        #expect(journal.all == ["host start", "host asked", "host stopped"])
    }

    @Test("a start that fails throws the service's own error")
    func failedStart() async {
        let journal = Journal()
        await #expect(throws: Failed()) {
            _ = try await RunningPart.start(FakePart(name: "host", journal: journal, failsToStart: true))
        }
        #expect(journal.all == ["host start"])
    }

    @Test("a service that returns without starting is reported as ended early")
    func endedWithoutStarting() async {
        struct Quits: LifecyclePart {
            let name = "quits"
            func run(_ context: ServiceContext) async throws {}
        }
        await #expect(throws: ServiceEndedEarly.self) { _ = try await RunningPart.start(Quits()) }
    }
}
