/// What PostgreSQL said about one session and the readers concerned, at one moment.
struct ContractSnapshot: Sendable, CustomStringConvertible {
    /// The session's row (`sdk_sessions`); nil when there is none.
    struct Session: Sendable, Equatable {
        var node: String?
        /// Not closed and its lease not run out (by PostgreSQL's clock).
        var alive: Bool
        /// The number of its latest answered discovery (`disc_<n>`), nil before the first.
        var discoveryAnswered: Int64?
        var discovered: Set<String>
    }

    /// One reader's `reader_ownership` row.
    struct Owner: Sendable, Equatable {
        var session: String?
        var generation: Int64
    }

    var session: Session?
    var readers: [String: Owner]

    var description: String {
        let row = session.map { "node=\($0.node ?? "-") alive=\($0.alive) disc=\($0.discoveryAnswered.map(String.init) ?? "-")" } ?? "no row"
        let owners = readers.keys.sorted().map { "\($0)=\(readers[$0]!.session ?? "-")@\(readers[$0]!.generation)" }.joined(separator: " ")
        return "[\(row); \(owners)]"
    }
}

/// PostgreSQL just before a call was sent and just after its answer came, with the changes of
/// owner recorded in between: the states the database passed through while the gateway
/// decided. An answer agrees with PostgreSQL when it matches one of them. No clock is compared:
/// only the order of the two reads around the call, and generations.
struct ContractWindow: Sendable, CustomStringConvertible {
    let session: String
    let before: ContractSnapshot
    let after: ContractSnapshot
    /// Changes of owner (no `refused_busy`) of the readers concerned with a generation above
    /// the one `before` read, in the order they were recorded.
    let history: [HistoryRow]

    /// The generations at which `session` owned `reader` at some moment of the window (empty:
    /// it never did), lowest first.
    func generationsOwned(_ reader: String) -> [Int64] {
        var owned: Set<Int64> = []
        let (first, last) = (before.readers[reader], after.readers[reader])
        if let first, first.session == session { owned.insert(first.generation) }
        if let last, last.session == session { owned.insert(last.generation) }
        let low = first?.generation ?? 0
        let high = last?.generation ?? Int64.max
        for change in history where change.reader == reader && change.generation > low && change.generation <= high && change.to == session {
            owned.insert(change.generation)
        }
        return owned.sorted()
    }

    /// Whether `session` owned `reader` through the whole window: at both reads, at the same
    /// generation (a change of owner in between bumps it).
    func ownedThroughout(_ reader: String) -> Bool {
        guard let first = before.readers[reader], let last = after.readers[reader] else { return false }
        return first.session == session && last.session == session && first.generation == last.generation
    }

    /// A reader the session owned through the whole window, if any.
    var heldThroughout: String? { before.readers.keys.sorted().first(where: ownedThroughout) }

    /// The session's row was open with its lease running at both reads (so all along).
    var aliveThroughout: Bool { before.session?.alive == true && after.session?.alive == true }

    /// The latest answered discovery stayed `id`, with `reader` in its answer, all along.
    func discoveryStayed(_ id: Int64, with reader: String) -> Bool {
        [before.session, after.session].allSatisfy { row in
            guard let row else { return false }
            return row.discoveryAnswered == id && row.discovered.contains(reader)
        }
    }

    var description: String {
        let changes = history.isEmpty ? "none" : history.map { "\($0.reader) \($0)" }.joined(separator: ", ")
        return "PostgreSQL before \(before), after \(after), changes between: \(changes)"
    }
}

/// The answers the raw lanes check against PostgreSQL, and what can go wrong with them.
enum ContractCheck: String, CaseIterable, Sendable {
    case resume = "OpenSession(resume) answers"
    case resumeRefused = "OpenSession(resume) refusals"
    case connectGranted = "ConnectReader grants"
    case alreadyConnected = "ALREADY_CONNECTED_TO_READER"
    case connectedToAnother = "READER_CONNECTED_TO_ANOTHER_SESSION"
    case toldBeforeRefused = "READER_CONNECTED_TO_ANOTHER_SESSION after the disconnected event"
    case notConnected = "NOT_CONNECTED_TO_READER"
    case unknownDiscovery = "INVALID_REQUEST (not one of this session's discoveries)"
    case staleDiscovery = "STALE_DISCOVERY"
    case discoveryRecorded = "DiscoverReaders answers"
    case commandAccepted = "commands accepted"
    case eventAfterResume = "disconnected events after a resume"

    /// Whether the contract promises it (a disagreement fails the run). A display or collect
    /// carried out for a reader PostgreSQL already gave to another session is not: the gateway
    /// fences those commands by the replica's memory, which hears of a takeover on another
    /// replica a notice later; the ledger keeps them as observations.
    var isPromise: Bool { self != .commandAccepted }

    /// Whether it is a refusal (the summary counts those apart from the answers).
    var isRefusal: Bool {
        switch self {
        case .resumeRefused, .alreadyConnected, .connectedToAnother, .toldBeforeRefused, .notConnected, .unknownDiscovery, .staleDiscovery: true
        case .resume, .connectGranted, .discoveryRecorded, .commandAccepted, .eventAfterResume: false
        }
    }
}

/// One answer that disagreed with PostgreSQL.
struct ContractViolation: Sendable, CustomStringConvertible {
    var check: ContractCheck
    var lane: String
    var session: String
    var reader: String?
    /// What was wrong, with the answer and the window.
    var detail: String

    var description: String { "\(check.rawValue): \(lane) session \(session)\(reader.map { " reader \($0)" } ?? ""): \(detail)" }
}

/// The rules, one per kind of answer: each returns what is wrong (nil: the answer agrees with
/// some state PostgreSQL passed through in the window). Pure, so they are tested without a
/// cluster.
enum ContractRules {
    /// `OpenSession(resume)` answered `resumed` with `connectedReader` (nil: absent).
    static func resume(resumed: Bool, connectedReader: String?, _ window: ContractWindow) -> String? {
        if !resumed && window.aliveThroughout {
            return "answered resumed=false while the session's row was open with its lease running"
        }
        if let reader = connectedReader {
            if window.generationsOwned(reader).isEmpty {
                return "answered connected_reader \(reader), which the session did not own at any moment of the call"
            }
        } else if let held = window.heldThroughout {
            return "answered no connected_reader while the session owned \(held) all along (generation \(window.after.readers[held]!.generation))"
        }
        return nil
    }

    /// `OpenSession(resume)` was refused with SESSION_EXPIRED (unknown, closed or expired).
    static func resumeRefused(_ window: ContractWindow) -> String? {
        window.aliveThroughout ? "refused while the session's row was open with its lease running all along" : nil
    }

    /// `ConnectReader(reader)` granted `generation`.
    static func connectGranted(_ reader: String, generation: Int64, _ window: ContractWindow) -> String? {
        let owned = window.generationsOwned(reader)
        return owned.contains(generation) ? nil : "granted generation \(generation), PostgreSQL shows the session owning it at \(owned.isEmpty ? "no generation" : "\(owned)")"
    }

    /// `ConnectReader(requested)` was refused with ALREADY_CONNECTED_TO_READER naming `named`
    /// (nil: the message named none).
    static func alreadyConnected(requested: String, named: String?, _ window: ContractWindow) -> String? {
        if let named {
            return window.generationsOwned(named).isEmpty ? "named \(named), which the session did not own at any moment of the call" : nil
        }
        let others = Set(window.before.readers.keys).union(window.after.readers.keys).subtracting([requested])
        return others.contains(where: { !window.generationsOwned($0).isEmpty }) ? nil : "the session owned no other reader at any moment of the call"
    }

    /// A command (or DisconnectReader) for `reader` was refused with
    /// READER_CONNECTED_TO_ANOTHER_SESSION or NOT_CONNECTED_TO_READER.
    static func lostReader(_ reader: String, _ window: ContractWindow) -> String? {
        window.ownedThroughout(reader) ? "the session owned it all along (generation \(window.after.readers[reader]!.generation))" : nil
    }

    /// A command for `reader` was carried out.
    static func commandAccepted(_ reader: String, _ window: ContractWindow) -> String? {
        window.generationsOwned(reader).isEmpty ? "carried out although the session did not own it at any moment of the call" : nil
    }

    /// `ConnectReader` with `discovery` (answered to this session) was refused as not one of the
    /// session's discoveries: the contract keeps a discovery valid until the next one, so this
    /// is always wrong; the row says what the gateway had recorded.
    static func unknownDiscovery(_ discovery: Int64, _ window: ContractWindow) -> String? {
        "disc_\(discovery) was answered to this session; its row says the latest answered is disc_\(window.before.session?.discoveryAnswered.map(String.init) ?? "-") before, disc_\(window.after.session?.discoveryAnswered.map(String.init) ?? "-") after"
    }

    /// `ConnectReader(reader)` from `discovery` was refused with STALE_DISCOVERY.
    static func staleDiscovery(_ discovery: Int64, reader: String, _ window: ContractWindow) -> String? {
        window.discoveryStayed(discovery, with: reader) ? "disc_\(discovery) (with \(reader)) was the row's latest answered discovery all along" : nil
    }

    /// `DiscoverReaders` answered `disc_<discovery>`: the row must record it before the answer leaves.
    static func discoveryRecorded(_ discovery: Int64, _ window: ContractWindow) -> String? {
        let recorded = window.after.session?.discoveryAnswered
        return recorded == discovery ? nil : "answered disc_\(discovery), the row records disc_\(recorded.map(String.init) ?? "-") after the answer"
    }

    /// A disconnected event about `generation` of a reader arrived after a resume answer that
    /// had the session owning it at `floor` or later.
    static func eventAfterResume(generation: UInt64, floor: Int64) -> String? {
        generation > 0 && Int64(generation) < floor ? "a disconnected event for generation \(generation) arrived after a resume answer for generation \(floor)" : nil
    }
}
