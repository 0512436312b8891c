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

    init(lane: WireLane, random: SplitMix64) {
        self.lane = lane
        self.random = random
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
        pendingEvents += taken.messages
        let now = pendingEvents.filter { $0.arrival < arrival }
        pendingEvents.removeAll { $0.arrival < arrival }
        for event in now { apply(event) }
        return taken.ended == nil
    }

    mutating func apply(_ arrived: WireConnection.Arrived) {
        guard let session, let event = try? ReaderGatewayV1.SessionEvent(serializedBytes: arrived.bytes),
              case .disconnected(let lost)? = event.event else { return }
        if let floor = floors[lost.readerID] {
            lane.ledger.record(
                .eventAfterResume, ContractRules.eventAfterResume(generation: lost.generation, floor: floor),
                lane: lane.label, session: session.id, reader: lost.readerID, window: nil
            )
        }
        if let refusal = refusedUntold.removeValue(forKey: lost.readerID) {
            print("chaos: \(lane.label): the disconnected event for \(lost.readerID) generation \(lost.generation) arrived \(arrived.arrival - refusal) frames after the refusal")
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
        connection?.cut()
        connection = nil
        attached = false
    }

    // MARK: steps

    mutating func step() async {
        let roll = random.next() % 100
        guard let discovery, roll >= 6 else { return await discover() }
        let candidates = discovery.readers.filter(lane.readers.contains)
        guard let held else {
            guard !candidates.isEmpty else { return await discover() }
            return await connect(candidates[Int(random.next() % UInt64(candidates.count))], failIfInUse: roll % 3 == 0)
        }
        switch roll {
        case ..<66: await command(.display, held.reader)
        case ..<74:
            // Another reader while holding one: ALREADY_CONNECTED_TO_READER, naming the held one.
            let others = candidates.filter { $0 != held.reader }
            if others.isEmpty { return await command(.display, held.reader) }
            await connect(others[Int(random.next() % UInt64(others.count))], failIfInUse: roll % 2 == 0)
        case ..<82: await command(.disconnect, held.reader)
        case ..<88: await command(.collect, held.reader)
        case ..<92:
            lane.count { $0.cuts += 1 }
            drop()
        default: await command(.display, held.reader)
        }
    }

    mutating func discover() async {
        guard let session else { return }
        var request = ReaderGatewayV1.DiscoverReadersRequest()
        request.sessionToken = session.token
        request.locationID = lane.cluster.location
        guard case let (answer, window)? = await checked(ReaderGatewayV1.Sdk.discoverReaders, request, session: session.id) else { return }
        if Self.isConnectionTrouble(answer) {
            // It may have answered and been recorded: the next connect needs a new one.
            discovery = nil
            return drop()
        }
        if answer.isOK, let response = answer.message.flatMap({ try? ReaderGatewayV1.DiscoverReadersResponse(serializedBytes: $0) }),
           response.discoveryID.hasPrefix("disc_"), let id = Int64(response.discoveryID.dropFirst(5)) {
            if let window {
                lane.ledger.record(.discoveryRecorded, ContractRules.discoveryRecorded(id, window), lane: lane.label, session: session.id, reader: nil, window: window)
            }
            discovery = (id, response.readers.map(\.id))
        } else if answer.reason != .rateLimited {
            // A refused discovery changes nothing; anything else may have superseded ours.
            if !answer.isOK { discovery = nil }
            lane.ledger.unchecked("DiscoverReaders \(Self.name(answer))", message: answer.status.message)
        }
    }

    mutating func connect(_ reader: String, failIfInUse: Bool) async {
        guard let session, let discovery else { return }
        var request = ReaderGatewayV1.ConnectReaderRequest()
        request.sessionToken = session.token
        request.readerID = reader
        request.discoveryID = "disc_\(discovery.id)"
        request.failIfInUse = failIfInUse
        guard case let (answer, window)? = await checked(ReaderGatewayV1.Sdk.connectReader, request, session: session.id) else { return }
        if Self.isConnectionTrouble(answer) { return drop() }
        let label = lane.label
        switch answer.reason {
        case _ where answer.isOK:
            guard let response = answer.message.flatMap({ try? ReaderGatewayV1.ConnectReaderResponse(serializedBytes: $0) }) else { return }
            let generation = Int64(response.generation)
            if let window {
                lane.ledger.record(.connectGranted, ContractRules.connectGranted(reader, generation: generation, window), lane: label, session: session.id, reader: reader, window: window)
            }
            held = Held(reader: reader, generation: generation)
        case .alreadyConnectedToReader:
            let named = Self.namedReader(answer.status.message)
            if let window {
                lane.ledger.record(
                    .alreadyConnected, ContractRules.alreadyConnected(requested: reader, named: named, window).map { "\($0) (answer: \(answer.status.message); \(replicas(window)))" },
                    lane: label, session: session.id, reader: named, window: window
                )
            }
            if let named { held = Held(reader: named, generation: window?.generationsOwned(named).last) }
        case .staleDiscovery:
            if let window {
                lane.ledger.record(
                    .staleDiscovery, ContractRules.staleDiscovery(discovery.id, reader: reader, window).map { "\($0) (answer: \(answer.status.message); \(replicas(window)))" },
                    lane: label, session: session.id, reader: reader, window: window
                )
            }
            self.discovery = nil
        case .invalidRequest where answer.status.message.contains("not one of this session's discoveries"):
            if let window {
                lane.ledger.record(
                    .unknownDiscovery, "\(ContractRules.unknownDiscovery(discovery.id, window) ?? "") (answer: \(answer.status.message); \(replicas(window)))",
                    lane: label, session: session.id, reader: reader, window: window
                )
            }
            self.discovery = nil
        default:
            lane.ledger.unchecked("ConnectReader \(Self.name(answer))", message: answer.status.message)
        }
    }

    mutating func command(_ command: Command, _ reader: String) async {
        guard let session else { return }
        let timeout = Duration.seconds(10)
        let outcome: (WireConnection.Answer, ContractWindow?)?
        switch command {
        case .display:
            var request = ReaderGatewayV1.SetReaderDisplayRequest()
            request.sessionToken = session.token
            var cart = ReaderGatewayV1.Cart()
            cart.currency = "usd"
            cart.total = 1_000
            request.cart = cart
            outcome = await checked(ReaderGatewayV1.Sdk.setReaderDisplay, request, session: session.id, timeout: timeout)
        case .collect:
            var request = ReaderGatewayV1.CollectPaymentMethodRequest()
            request.sessionToken = session.token
            var params = ReaderGatewayV1.CollectPaymentMethodParams()
            params.paymentIntentID = "pi_wire_\(lane.label.filter { $0.isLetter || $0.isNumber })"
            params.amount = 1_000
            params.currency = "usd"
            request.params = params
            outcome = await checked(ReaderGatewayV1.Sdk.collectPaymentMethod, request, session: session.id, timeout: timeout)
        case .disconnect:
            var request = ReaderGatewayV1.DisconnectReaderRequest()
            request.sessionToken = session.token
            outcome = await checked(ReaderGatewayV1.Sdk.disconnectReader, request, session: session.id, timeout: timeout)
        }
        guard case let (answer, window)? = outcome else { return }
        if Self.isConnectionTrouble(answer) { return drop() }
        let label = lane.label
        switch answer.reason {
        case _ where answer.isOK:
            if command == .disconnect {
                held = nil
            } else if let window {
                lane.ledger.record(.commandAccepted, ContractRules.commandAccepted(reader, window).map { "\(command.rawValue) \($0)" }, lane: label, session: session.id, reader: reader, window: window)
            }
        case .readerConnectedToAnotherSession:
            if let window {
                lane.ledger.record(
                    .connectedToAnother, ContractRules.lostReader(reader, window).map { "\(command.rawValue) refused but \($0) (\(replicas(window)))" },
                    lane: label, session: session.id, reader: reader, window: window
                )
            }
            // The disconnected event must have come first, on this very connection.
            _ = absorbEvents(before: answer.arrival)
            let stillHeld = held.map { $0.reader == reader } ?? false
            lane.ledger.record(
                .toldBeforeRefused,
                stillHeld ? "\(command.rawValue) was refused before the disconnected event for generation \(held?.generation.map(String.init) ?? "?") arrived\(window.map { " (\(replicas($0)))" } ?? "")" : nil,
                lane: label, session: session.id, reader: reader, window: window
            )
            if stillHeld { refusedUntold[reader] = answer.arrival }
            held = nil
        case .notConnectedToReader:
            if let window {
                lane.ledger.record(
                    .notConnected, ContractRules.lostReader(reader, window).map { "\(command.rawValue) refused but \($0) (\(replicas(window)))" },
                    lane: label, session: session.id, reader: reader, window: window
                )
            }
            held = nil
        default:
            lane.ledger.unchecked("\(command.rawValue) \(Self.name(answer))", message: answer.status.message)
        }
    }

    // MARK: judging

    /// Reads PostgreSQL, sends the call, reads PostgreSQL again (and the changes of owner in
    /// between). Nil when PostgreSQL could not be read before (the call is not sent); the
    /// window is nil when the call's connection failed or PostgreSQL could not be read after.
    mutating func checked<Request, Response>(
        _ method: ProtobufMethod<Request, Response>, _ request: Request, session: String, timeout: Duration = .seconds(10)
    ) async -> (WireConnection.Answer, ContractWindow?)? {
        guard let connection else { return nil }
        let lane = self.lane
        let giveUp: @Sendable () -> Bool = { lane.isStopping }
        guard let before = await lane.database.snapshot(session: session, giveUp: giveUp) else {
            lane.ledger.unchecked("PostgreSQL unreachable before a call")
            return nil
        }
        let answer = await connection.call(method, request, timeout: timeout)
        lane.count { $0.calls += 1 }
        if Self.isConnectionTrouble(answer) { return (answer, nil) }
        guard let after = await lane.database.snapshot(session: session, giveUp: giveUp),
              let changes = await lane.database.changes(from: before, to: after, giveUp: giveUp) else {
            lane.ledger.unchecked("PostgreSQL unreachable after a call")
            return (answer, nil)
        }
        return (answer, ContractWindow(session: session, before: before, after: after, history: changes))
    }

    /// Which replicas held the session's row before and after the call.
    func replicas(_ window: ContractWindow) -> String {
        let name = { (node: String?) in node.map { lane.cluster.replica(ofNode: $0)?.name ?? $0 } ?? "-" }
        return "session row on \(name(window.before.session?.node)) before, \(name(window.after.session?.node)) after"
    }

    /// The connection failed under the call (or its deadline passed): the answer says nothing
    /// about the contract, and the lane connects again and resumes.
    static func isConnectionTrouble(_ answer: WireConnection.Answer) -> Bool {
        switch answer.status.code {
        case .unavailable:
            return ![.storeUnavailable, .readerLinkMoved, .readerOffline, .readerSoftwareUpdateFailedInterrupted].contains(answer.reason)
        case .deadlineExceeded, .cancelled: return true
        default: return false
        }
    }

    static func name(_ answer: WireConnection.Answer) -> String {
        let error = RPCError(status: answer.status)
        return answer.isOK ? "OK" : "\(error.codeName)/\(error.reasonName)"
    }

    /// The reader an ALREADY_CONNECTED_TO_READER message names ("... connected to reader tmr_x; ...").
    static func namedReader(_ message: String) -> String? {
        guard let range = message.range(of: "connected to reader ") else { return nil }
        let name = message[range.upperBound...].prefix { !$0.isWhitespace && $0 != ";" && $0 != "," }
        return name.isEmpty ? nil : String(name)
    }
}
