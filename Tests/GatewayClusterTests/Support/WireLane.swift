import Foundation
import GatewayClient
import GatewayTestKit
import GatewayWire
import Synchronization

/// A point-of-sale lane written from `proto/` alone, with none of the client library's
/// recovery: its calls go over a ``WireConnection`` through the load balancer; it opens a
/// session, subscribes to its events on the same connection, discovers, connects (sometimes
/// failIfInUse), takes readers from the other raw lanes, sends commands, disconnects, and now
/// and then cuts its own connection. When its connection is gone it connects again through
/// the balancer and resumes with `OpenSession(resume_token)`, then believes what the answer
/// says. Nothing is retried behind its back.
///
/// Around every call it reads PostgreSQL just before sending and just after the answer
/// (``ContractDatabase``), and every resume answer, refusal, grant, accepted command and
/// discovery answer is judged against the states in between (``ContractRules``) into the
/// shared ``ContractLedger``. Two rules need no database: a session refused with
/// READER_CONNECTED_TO_ANOTHER_SESSION must have had its disconnected event first (events
/// and answers share the connection, so arrival order is the gateway's order), and after a
/// resume answer for generation G no event about an earlier generation of that reader arrives.
final class WireLane: Sendable {
    struct Stats: Sendable {
        var calls = 0
        var connections = 0
        var resumes = 0
        var sessions = 0
        var cuts = 0
        /// Times the lane could not reach any replica for a minute.
        var stuck: [String] = []
    }

    let label: String
    let readers: [String]
    let cluster: ClusterFixture
    let ledger: ContractLedger
    let database: ContractDatabase
    private let seed: UInt64
    private let stopping = Atomic<Bool>(false)
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let counters = Mutex(Stats())

    init(label: String, readers: [String], cluster: ClusterFixture, ledger: ContractLedger, seed: UInt64) {
        self.label = label
        self.readers = readers
        self.cluster = cluster
        self.ledger = ledger
        self.seed = seed
        database = ContractDatabase(postgres: cluster.postgres, readers: readers)
    }

    var isStopping: Bool { stopping.load(ordering: .relaxed) }
    var stats: Stats { counters.withLock { $0 } }
    func count(_ change: (inout Stats) -> Void) { counters.withLock { change(&$0) } }

    func start() {
        let task = Task { [self] in
            var driver = WireLaneDriver(lane: self, random: SplitMix64(seed: seed))
            await driver.run()
        }
        self.task.withLock { $0 = task }
    }

    /// Lets the call in flight end (each has a deadline), then stops.
    func stop() async {
        stopping.store(true, ordering: .relaxed)
        if let task = task.withLock({ $0 }) {
            if (try? await withDeadline(.seconds(60), "stopping \(label)", { await task.value })) == nil {
                task.cancel()
                print("chaos: \(label) did not stop within 60 s; cancelled")
            }
        }
        await database.close()
    }
}

/// A raw lane's state and steps: owned by its one task, so nothing here is shared.
struct WireLaneDriver {
    struct Held {
        var reader: String
        /// The generation the lane was granted or told of; nil when not known.
        var generation: Int64?
    }

    enum Command: String {
        case display = "SetReaderDisplay", collect = "CollectPaymentMethod", disconnect = "DisconnectReader"
    }

    let lane: WireLane
    var random: SplitMix64
    var connection: WireConnection?
    /// The session was opened or resumed on `connection` and its events subscribed there.
    var attached = false
    var session: (id: String, token: String)?
    var held: Held?
    var discovery: (id: Int64, readers: [String])?
    /// Per reader, the lowest generation a resume answer had the session owning: no event
    /// about an earlier one may arrive afterwards.
    var floors: [String: Int64] = [:]
    /// Events that arrived after an answer being judged, handled at the next step.
    var pendingEvents: [WireConnection.Arrived] = []
    /// Readers whose loss was refused before its disconnected event arrived, with the
    /// refusal's arrival: when the event comes after all, the log says how much later.
    var refusedUntold: [String: UInt64] = [:]
    /// The lane's last steps, events and answers, printed when an answer breaks a rule.
    var journal: [String] = []
    /// The end of the current connection's event stream is in the journal.
    var streamEndNoted = false

    init(lane: WireLane, random: SplitMix64) {
        self.lane = lane
        self.random = random
    }

    /// Appends one line to the journal (the last 80 are kept).
    mutating func note(_ line: String) {
        journal.append(line)
        if journal.count > 80 { journal.removeFirst(journal.count - 80) }
    }

    mutating func run() async {
        while !lane.isStopping {
            if connection == nil || !attached {
                await establish()
                continue
            }
            guard absorbEvents() else {
                drop()
                continue
            }
            await step()
            try? await Task.sleep(for: .milliseconds(Int64(20 + random.next() % 60)))
        }
        connection?.cut()
    }

    // MARK: connection and session

    /// Connects through the balancer when needed, resumes the session (or opens one) and
    /// subscribes to its events.
    mutating func establish() async {
        let began = ContinuousClock.now
        var backoff = Duration.milliseconds(100)
        var reported = false
        while connection == nil && !lane.isStopping {
            do {
                connection = try await WireConnection.connect(port: lane.cluster.balancerPort, caPath: lane.cluster.certificates.caPath, group: lane.cluster.group)
                lane.count { $0.connections += 1 }
                note("connected (connection \(lane.stats.connections))")
            } catch {
                if !reported && ContinuousClock.now - began > .seconds(60) {
                    reported = true
                    let label = lane.label
                    lane.count { $0.stuck.append("\(wallClock()) \(label) reached no replica for 60 s: \(error)") }
                }
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(1))
            }
        }
        guard let connection, !lane.isStopping else { return }
        if session != nil { await resume() }
        if session == nil, self.connection != nil { await openSession() }
        guard let session, self.connection === connection, attached else {
            if self.connection != nil { try? await Task.sleep(for: .milliseconds(200)) }
            return
        }
        var request = ReaderGatewayV1.SubscribeEventsRequest()
        request.sessionToken = session.token
        connection.subscribe(ReaderGatewayV1.Sdk.subscribeEvents, request)
    }

    mutating func openSession() async {
        guard let connection else { return }
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = lane.cluster.token
        request.posDeviceID = "pos-\(lane.label.filter { $0.isLetter || $0.isNumber })"
        request.laneLabel = lane.label
        let answer = await connection.call(ReaderGatewayV1.Sdk.openSession, request, timeout: .seconds(10))
        lane.count { $0.calls += 1 }
        if Self.isConnectionTrouble(answer) { return drop() }
        guard answer.isOK, let response = answer.message.flatMap({ try? ReaderGatewayV1.OpenSessionResponse(serializedBytes: $0) }) else {
            lane.ledger.unchecked("OpenSession \(Self.name(answer))", message: answer.status.message)
            return
        }
        startSession(id: response.sessionID, token: response.sessionToken)
        attached = true
        lane.count { $0.sessions += 1 }
        note("opened session \(response.sessionID)")
    }

    mutating func startSession(id: String, token: String) {
        session = (id, token)
        held = nil
        discovery = nil
        floors = [:]
    }

    /// `OpenSession(resume_token)`, judged.
    mutating func resume() async {
        guard connection != nil, let current = session else { return }
        let (id, token) = (current.id, current.token)
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.resumeToken = token
        guard case let (answer, window)? = await checked(ReaderGatewayV1.Sdk.openSession, request, session: id) else { return }
        if Self.isConnectionTrouble(answer) { return drop() }
        if answer.isOK, let response = answer.message.flatMap({ try? ReaderGatewayV1.OpenSessionResponse(serializedBytes: $0) }) {
            let reader = response.connectedReader.map(\.id).flatMap { $0.isEmpty ? nil : $0 }
            if let window {
                lane.ledger.record(
                    .resume, ContractRules.resume(resumed: response.resumed, connectedReader: reader, window).map { "\($0) (\(replicas(window)))" },
                    lane: lane.label, session: id, reader: reader ?? held?.reader, window: window
                )
            }
            lane.count { $0.resumes += 1 }
            note("resume answered resumed=\(response.resumed) reader=\(reader ?? "-") owned=\(reader.map { window?.generationsOwned($0) ?? [] } ?? []) \(window.map(replicas) ?? "no window")")
            guard response.resumed else {
                startSession(id: response.sessionID, token: response.sessionToken)
                attached = true
                return
            }
            attached = true
            if let reader {
                let owned = window?.generationsOwned(reader) ?? []
                held = Held(reader: reader, generation: owned.last)
                if let lowest = owned.first { floors[reader] = max(floors[reader] ?? 0, lowest) }
            } else {
                held = nil
            }
        } else if answer.reason == .sessionExpired {
            if let window {
                lane.ledger.record(.resumeRefused, ContractRules.resumeRefused(window), lane: lane.label, session: id, reader: nil, window: window)
            }
            session = nil
        } else {
            lane.ledger.unchecked("OpenSession(resume) \(Self.name(answer))", message: answer.status.message)
        }
    }

    /// Takes the events that arrived before `arrival` and applies them; false when the event
    /// stream (or the connection) ended.
    mutating func absorbEvents(before arrival: UInt64 = .max) -> Bool {
        guard let connection else { return false }
        let taken = connection.take()
        if let end = connection.streamEnd, taken.ended != nil, !streamEndNoted {
            streamEndNoted = true
            note("event stream ended at arrival \(end.arrival): \(RPCError(status: end.status))")
        }
        pendingEvents += taken.messages
        let now = pendingEvents.filter { $0.arrival < arrival }
        pendingEvents.removeAll { $0.arrival < arrival }
        for event in now { apply(event) }
        return taken.ended == nil
    }

    mutating func apply(_ arrived: WireConnection.Arrived) {
        guard let session, let event = try? ReaderGatewayV1.SessionEvent(serializedBytes: arrived.bytes),
              case .disconnected(let lost)? = event.event else { return }
        note("event at arrival \(arrived.arrival): disconnected \(lost.readerID) generation \(lost.generation) \(lost.reason.protoName ?? "\(lost.reason.rawValue)") taken by \(lost.takenByLaneLabel.isEmpty ? "-" : lost.takenByLaneLabel) (held \(held.map { "\($0.reader)@\($0.generation.map(String.init) ?? "?")" } ?? "none"))")
        if let floor = floors[lost.readerID] {
            lane.ledger.record(
                .eventAfterResume, ContractRules.eventAfterResume(generation: lost.generation, floor: floor),
                lane: lane.label, session: session.id, reader: lost.readerID, window: nil
            )
        }
        if let refusal = refusedUntold.removeValue(forKey: lost.readerID) {
            let taker = lost.takenByLaneLabel.isEmpty ? "" : " by \(lost.takenByLaneLabel)"
            print("chaos: \(lane.label): the disconnected event for \(lost.readerID) generation \(lost.generation) (\(lost.reason.protoName ?? "\(lost.reason.rawValue)")\(taker)) arrived \(arrived.arrival - refusal) frames after the refusal")
        }
        if let held, held.reader == lost.readerID,
           held.generation == nil || lost.generation == 0 || Int64(lost.generation) >= held.generation! {
            self.held = nil
        }
    }

    /// Forgets the connection (cut if still up); the next turn connects again and resumes.
    mutating func drop() {
        if connection != nil { _ = absorbEvents() }
        pendingEvents = []
        for reader in refusedUntold.keys.sorted() {
            print("chaos: \(lane.label): the disconnected event for \(reader) never arrived on the connection that carried the refusal")
        }
        refusedUntold = [:]
        if connection != nil { note("dropped the connection") }
        connection?.cut()
        connection = nil
        attached = false
        streamEndNoted = false
    }
}
