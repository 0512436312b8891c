import GatewayCore
import GatewayDomain
import GatewayPostgres

/// Reader ownership in PostgreSQL: atomic across every gateway replica, one round trip per
/// operation.
///
/// How the store and ``ReaderOwnershipStateMachine`` agree: each statement decides in SQL, on
/// the row it locked, by the same rules in the same order as the machine (see
/// ``OwnershipStatements``), and returns the row as it found it. The store then replays the
/// event on a machine built from that row: the machine produces the actions (notify the
/// displaced session, fail its next command, cancel the interrupted command) and must reach the
/// decision SQL reached; a disagreement is logged as an error and the stored decision wins,
/// because it is the one every replica sees. The tests run every event in every state through
/// both and compare. History rows are written by the statements themselves, so the actions
/// returned here never contain ``OwnershipAction/recordHistory(_:)``.
///
/// Throughput: each claim is its own transaction, so a connection commits its claims one after
/// the other however deeply the client pipelines them. With more concurrent claimants than
/// connections, send claims through ``OwnershipClaimBatcher`` (one commit per batch) or give
/// the store's client about as many connections as concurrent claimants (`make bench-ownership`
/// measures both beside pgbench).
public struct OwnershipStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// The text of the one-statement claim (parameters: reader, session, lane, failIfInUse,
    /// reader discovery, latest discovery), for comparisons with pgbench and for operators.
    public static var claimStatement: String { OwnershipStatements.claim }

    /// The text of what a lane's connect sends: the claim and the claimed reader's row in one
    /// statement (parameters as for ``claimStatement``, then the session's account), for
    /// comparisons with pgbench.
    public static var connectStatement: String { OwnershipStatements.claimWithReader }

    public init(client: PostgresClient, logger: Logger = Logger(component: "ownership")) {
        self.client = client
        self.logger = logger
    }

    /// Decides a connect request for `reader` (Stripe Terminal's `connectReader`).
    public func claim(_ reader: ReaderID, _ request: ConnectRequest) async throws(StoreError) -> ConnectResult {
        let rows = try await client.query(OwnershipStatements.claim, Self.claimParameters(reader, request).map { value in value.map { PostgresValue(text: $0) } })
        return try decodeClaim(try Self.single(rows, "claim"), reader: reader, request: request)
    }

    /// The claim's parameters, in the order of ``OwnershipStatements/claim``.
    static func claimParameters(_ reader: ReaderID, _ request: ConnectRequest) -> [String?] {
        [
            reader.rawValue, request.session.rawValue, request.lane.rawValue, request.failIfInUse ? "t" : "f",
            String(Int64(clamping: request.readerDiscovery.value)), String(Int64(clamping: request.latestDiscovery.value)),
        ]
    }

    /// Turns a claim's row into the decision, replaying it on the state machine for the actions.
    func decodeClaim(_ row: PostgresRow, reader: ReaderID, request: ConnectRequest) throws(StoreError) -> ConnectResult {
        let outcome = try row.decode(String.self, "outcome")
        let found = try FoundRow(row, generation: "previous_generation", session: "owner_session_id", lane: "owner_lane_label", command: "command")
        let link: ReaderOwnershipStateMachine.Link
        switch outcome {
        case "unknown_reader": link = .unknown
        case "reader_offline": link = .offline(LinkEpoch(0))
        default: link = .online(LinkEpoch(0))
        }
        var machine = found.machine(reader: reader, link: link)
        let replayed = machine.connect(request)
        if Self.outcome(of: replayed) != outcome {
            logger.error("store and state machine disagree on a claim", ["reader": reader, "stored": outcome, "machine": Self.outcome(of: replayed)])
        }
        // The generation granted is the row's: above the machine's `previous + 1` on the first
        // change of a reader on a new timeline (the floor of migration 0020).
        guard case .granted(let grant, _, let actions) = replayed, let stored = try row.decode(Int64?.self, "generation") else {
            return Self.withoutHistory(replayed)
        }
        return Self.withoutHistory(.granted(grant, generation: OwnershipGeneration(stored), actions: actions))
    }

    /// Starts `command` for the owner holding `generation`; transaction commands mark the reader in use.
    public func commandStarted(
        _ command: ReaderCommand,
        reader: ReaderID,
        session: SessionID,
        generation: OwnershipGeneration
    ) async throws(StoreError) -> CommandStartResult {
        let parameters = [PostgresValue(reader.rawValue), PostgresValue(session.rawValue), PostgresValue(generation.rawValue)]
        let rows: PostgresRows
        if command.marksReaderInUse {
            rows = try await client.query(OwnershipStatements.commandStart, parameters + [PostgresValue(command.rawValue)])
        } else {
            rows = try await client.query(OwnershipStatements.fence, parameters)
        }
        let outcome = try Self.single(rows, "command start").decode(String.self, "outcome")
        if outcome == "proceed" { return .proceed }
        return .refused(try Self.refusal(outcome))
    }

    /// Records that `command` finished; only the transaction in progress, fenced by `generation`.
    public func commandFinished(
        _ command: ReaderCommand,
        reader: ReaderID,
        session: SessionID,
        generation: OwnershipGeneration
    ) async throws(StoreError) -> CommandFinishResult {
        let rows = try await client.query(
            OwnershipStatements.commandFinish,
            [
                PostgresValue(reader.rawValue), PostgresValue(session.rawValue), PostgresValue(generation.rawValue),
                PostgresValue(command.rawValue),
            ]
        )
        switch try Self.single(rows, "command finish").decode(String.self, "outcome") {
        case "finished": return .finished
        case "ignored": return .ignored(nil)
        case let other: return .ignored(try Self.refusal(other))
        }
    }

    /// The owner disconnects (`disconnectReader`), fenced by its generation.
    public func disconnect(reader: ReaderID, session: SessionID, generation: OwnershipGeneration) async throws(StoreError) -> ReleaseResult {
        let rows = try await client.query(
            OwnershipStatements.release,
            [PostgresValue(reader.rawValue), PostgresValue(session.rawValue), PostgresValue(generation.rawValue)]
        )
        let row = try Self.single(rows, "disconnect")
        let outcome = try row.decode(String.self, "outcome")
        guard outcome == "released" else { return .refused(try Self.refusal(outcome)) }
        let found = try FoundRow(released: row)
        var machine = found.machine(reader: reader, link: .online(LinkEpoch(0)))
        return Self.withoutHistory(machine.disconnect(session: session, generation: found.generation))
    }

    /// A fleet admin releases `reader` from whichever session holds it.
    public func adminRelease(reader: ReaderID) async throws(StoreError) -> ReleaseResult {
        try Self.adminReleased(reader, try await client.query(OwnershipStatements.adminRelease, [PostgresValue(reader.rawValue)]))
    }

    /// What an admin release's statement answered (``OwnershipStatements/adminReleaseOutcome``), as the result.
    static func adminReleased(_ reader: ReaderID, _ rows: PostgresRows) throws(StoreError) -> ReleaseResult {
        let row = try single(rows, "admin release")
        let outcome = try row.decode(String.self, "outcome")
        guard outcome == "released" else { return .unchanged(try refusal(outcome)) }
        var machine = try FoundRow(released: row).machine(reader: reader, link: .online(LinkEpoch(0)))
        return withoutHistory(machine.adminRelease())
    }

    /// One ownership ended because its session's lease ran out (``expireSessions(limit:)``), or
    /// one reader went offline because its link stayed detached past the offline bound
    /// (``releaseDetachedReaders(offlineBound:limit:)``).
    public struct ExpiredOwnership: Hashable, Sendable {
        public var reader: ReaderID
        /// The released ownership, with the actions to run (notify, cancel).
        public var result: ReleaseResult

        public init(reader: ReaderID, result: ReleaseResult) {
            self.reader = reader
            self.result = result
        }
    }

    /// Ends the ownerships of sessions whose lease ran out (at most `limit` per call).
    ///
    /// Run it periodically on every replica: concurrent sweepers skip each other's rows and
    /// each expiry is recorded once.
    public func expireSessions(limit: Int = 500) async throws(StoreError) -> [ExpiredOwnership] {
        let rows = try await client.query(OwnershipStatements.expireSessions, [PostgresValue(limit)])
        var expired: [ExpiredOwnership] = []
        for row in rows {
            let reader = ReaderID(try row.decode(String.self, "reader_id"))
            let found = try FoundRow(released: row)
            var machine = found.machine(reader: reader, link: .online(LinkEpoch(0)))
            let session = found.owner?.session ?? SessionID("")
            expired.append(ExpiredOwnership(reader: reader, result: Self.withoutHistory(machine.sessionExpired(session))))
        }
        return expired
    }
}
