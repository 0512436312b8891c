import CGatewayPostgres
import Glibc
import GatewayCore
import GatewayEventLoop

/// Identifies one connection of a ``PostgresClient``'s pool.
struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    let raw: Int
    var description: String { String(raw) }
}

/// Delivers one statement's outcome. Runs with the engine lock held; it must only
/// resume a continuation or hand work to the store's own state.
typealias StatementCompletion = @Sendable (Result<PostgresRows, StoreError>) -> Void

/// One statement waiting to be sent.
struct Statement: Sendable {
    var sql: String
    var parameters: [PostgresValue?]
    var completion: StatementCompletion
}

/// What one round of reading a connection produced; the caller runs the
/// completions after it has finished touching the connection.
struct ConnectionInput {
    var finished: [(StatementCompletion, Result<PostgresRows, StoreError>)] = []
    var notifications: [PostgresNotification] = []
    /// Set when the connection broke; every statement in flight is in `finished` with an error.
    var failure: StoreError?
}

/// One libpq connection in non-blocking pipeline mode, driven by the store thread.
///
/// Each statement is sent with `PQsendQueryParams` followed by its own
/// `PQpipelineSync`, so it commits on its own (outside an explicit
/// transaction) and an error in it cannot abort the statements behind it,
/// while statements from many callers still share the connection without
/// waiting for each other's round trips. Results come back in order.
///
/// Touched only by ``PostgresStoreLoop`` with its engine lock held.
final class PostgresConnection {
    /// Where the connection is in its life.
    enum State {
        /// `PQconnectPoll` still has work to do.
        case connecting
        /// Connected, in pipeline mode, accepting statements.
        case ready
        /// Finished; the socket is closed.
        case closed
    }

    /// What `PQconnectPoll` asks for next.
    enum ConnectProgress {
        case waitReadable
        case waitWritable
        case ready
        case failed(StoreError)
    }

    /// The pool connection runs statements; the listener connection only LISTENs.
    enum Role { case pool, listener }

    private struct InFlight {
        var completion: StatementCompletion
        var result: PostgresResultHandle?
        var error: StoreError?
        /// The statement is prepared in the same pipeline: the prepare's result (and its NULL)
        /// come first. Holds the cache key, dropped when the prepare fails.
        var preparing: PreparedKey?
        /// The statement ran as this cached prepared statement (dropped when the server lost it).
        var ranPrepared: PreparedKey?
        /// The statement's results are complete (libpq returned NULL); its sync result is next.
        var awaitingSync = false
    }

    /// A statement's text and parameter types: what the server parsed once under a name.
    struct PreparedKey: Hashable {
        var sql: String
        var types: [Oid]
    }

    /// Statements with parameters prepared on this connection at most (the server keeps each
    /// one's parse tree and plan per connection; the gateway sends a few dozen distinct texts).
    static let maximumPrepared = 256

    let id: ConnectionID
    let role: Role
    let logger: Logger
    private(set) var state: State = .connecting
    private var pg: OpaquePointer?
    private var inflight: [InFlight] = []
    /// The statements this connection prepared, by text and parameter types: their names.
    /// Parsing and planning happen once per connection rather than on every run (PostgreSQL's
    /// CPU per connect fell by about 30 % in `make service-bench`).
    private var prepared: [PreparedKey: String] = [:]
    private var nextPreparedName = 1
    private var noticeContext: Unmanaged<NoticeContext>?
    /// The socket's registration with the store thread's loop, and the interest registered.
    var registration: EventLoopRegistration?
    var registeredEvents: UInt32 = 0
    /// Connecting wants the socket writable rather than readable.
    var connectWantsWrite = true
    /// Output is still buffered in libpq.
    private(set) var wantsWrite = false
    /// The server refused a statement as read-only (SQLSTATE 25006): it is not the primary
    /// (any more). The store drops the connection once the results are delivered.
    private(set) var refusedAsReadOnly = false

    var inflightCount: Int { inflight.count }
    var socket: Int32 { pg.map { PQsocket($0) } ?? -1 }

    private init(id: ConnectionID, role: Role, logger: Logger, pg: OpaquePointer) {
        self.id = id
        self.role = role
        self.logger = logger
        self.pg = pg
        let context = Unmanaged.passRetained(NoticeContext(logger: logger))
        noticeContext = context
        PQsetNoticeReceiver(pg, postgresNoticeReceiver, context.toOpaque())
    }

    deinit { close() }

    /// Starts a non-blocking connection attempt.
    static func start(
        id: ConnectionID,
        role: Role,
        configuration: PostgresConfiguration,
        logger: Logger
    ) -> Result<PostgresConnection, StoreError> {
        // Keywords given later override earlier ones: the connection string's own
        // target_session_attrs (for example `any`) wins over the default, which makes libpq
        // skip a standby or a read-only server and, with several hosts, find the primary.
        let keywords = ["target_session_attrs", "dbname", "fallback_application_name"]
        let values = [PostgresConfiguration.defaultTargetSessionAttributes, configuration.connectionString, configuration.applicationName]
        let pg = withCStringArray(keywords) { keywordPointers in
            withCStringArray(values) { valuePointers in
                PQconnectStartParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let pg else {
            return .failure(StoreError(.connectionFailed, "libpq could not allocate a connection (out of memory?)"))
        }
        if PQstatus(pg) == CONNECTION_BAD {
            let error = StoreError(
                .connectionFailed,
                "cannot connect to PostgreSQL at \(configuration.redactedDescription); check the database URL and that the server is running",
                underlying: String(cString: PQerrorMessage(pg)).trimmingTrailingNewlines()
            )
            PQfinish(pg)
            return .failure(error)
        }
        return .success(PostgresConnection(id: id, role: role, logger: logger.with("connection", id.raw), pg: pg))
    }

    /// Advances the connection handshake after the socket became ready.
    func pollConnect(description: String) -> ConnectProgress {
        guard let pg, state == .connecting else {
            return .failed(StoreError(.connectionFailed, "the connection was closed while connecting"))
        }
        switch PQconnectPoll(pg) {
        case PGRES_POLLING_READING:
            connectWantsWrite = false
            return .waitReadable
        case PGRES_POLLING_WRITING:
            connectWantsWrite = true
            return .waitWritable
        case PGRES_POLLING_OK:
            guard PQsetnonblocking(pg, 1) == 0, PQenterPipelineMode(pg) == 1 else {
                return .failed(StoreError(
                    .connectionFailed, "cannot switch the connection to non-blocking pipeline mode (needs libpq 14 or newer)",
                    underlying: lastError
                ))
            }
            state = .ready
            return .ready
        default:
            let reason = lastError
            if reason.contains("read-only") || reason.contains("hot standby") {
                return .failed(StoreError(
                    .connectionFailed,
                    "no server at \(description) accepts writes (a standby, or a failover not finished yet); retry, and list the primary's address (or every host) in the database URL",
                    underlying: reason
                ))
            }
            return .failed(StoreError(
                .connectionFailed,
                "cannot connect to PostgreSQL at \(description); check the database URL and that the server is running",
                underlying: reason
            ))
        }
    }

    /// Sends one statement behind those already in flight. False (and nothing
    /// in flight added) when libpq would not take it.
    func send(_ statement: Statement) -> Bool {
        guard let pg, state == .ready else { return false }
        let count = statement.parameters.count
        // All parameter texts, NUL-terminated, in one buffer: one allocation per statement, each
        // text copied whole (a native string's UTF-8 is contiguous).
        var buffer: [UInt8] = []
        buffer.reserveCapacity(statement.parameters.reduce(0) { $0 + ($1?.text.utf8.count ?? 0) + 1 })
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for parameter in statement.parameters {
            guard let parameter else {
                offsets.append(-1)
                continue
            }
            offsets.append(buffer.count)
            buffer.append(contentsOf: parameter.text.utf8)
            buffer.append(0)
        }
        let types: [Oid] = statement.parameters.map { $0?.typeOID ?? 0 }
        // Statements with parameters run as prepared statements, prepared in the same pipeline
        // on their first run on this connection (parameterless ones are mostly one-offs).
        var entry = InFlight(completion: statement.completion)
        var name: String?
        if count > 0 {
            let key = PreparedKey(sql: statement.sql, types: types)
            if let existing = prepared[key] {
                name = existing
                entry.ranPrepared = key
            } else if prepared.count < Self.maximumPrepared {
                let fresh = "rg_\(nextPreparedName)"
                let queued = types.withUnsafeBufferPointer { typeBuffer in
                    PQsendPrepare(pg, fresh, statement.sql, Int32(count), typeBuffer.baseAddress)
                }
                guard queued == 1 else { return false }
                nextPreparedName += 1
                prepared[key] = fresh
                name = fresh
                entry.preparing = key
                entry.ranPrepared = key
            }
        }
        let sent = buffer.withUnsafeBufferPointer { bytes in
            // No base address when there are no parameters (and then no offset to resolve).
            let base = bytes.baseAddress.map(UnsafeRawPointer.init)
            let values: [UnsafePointer<CChar>?] = offsets.map { $0 < 0 ? nil : (base! + $0).assumingMemoryBound(to: CChar.self) }
            return values.withUnsafeBufferPointer { valueBuffer in
                types.withUnsafeBufferPointer { typeBuffer in
                    if let name {
                        return PQsendQueryPrepared(pg, name, Int32(count), valueBuffer.baseAddress, nil, nil, 0)
                    }
                    return PQsendQueryParams(
                        pg, statement.sql, Int32(count),
                        count == 0 ? nil : typeBuffer.baseAddress,
                        count == 0 ? nil : valueBuffer.baseAddress,
                        nil, nil, 0
                    )
                }
            }
        }
        guard sent == 1, PQpipelineSync(pg) == 1 else {
            if let key = entry.preparing { prepared[key] = nil }
            return false
        }
        inflight.append(entry)
        if !flush() {
            // The statement is in flight now: a failed write shows up as an
            // epoll error on the socket, and the next flush or read breaks the
            // connection and fails it with the others.
            wantsWrite = true
        }
        return true
    }

    /// Pushes buffered output to the socket. False when the connection broke.
    @discardableResult
    func flush() -> Bool {
        guard let pg else { return false }
        switch PQflush(pg) {
        case 0: wantsWrite = false
        case 1: wantsWrite = true
        default: return false
        }
        return true
    }

    /// Reads what the server sent and completes the statements whose results are in.
    func readInput() -> ConnectionInput {
        var input = ConnectionInput()
        guard let pg, state == .ready else {
            input.failure = StoreError(.connectionLost, "the connection is closed; run the statement again")
            return input
        }
        if PQconsumeInput(pg) == 0 {
            return breakConnection(input)
        }
        while let notify = PQnotifies(pg) {
            input.notifications.append(PostgresNotification(
                channel: String(cString: notify.pointee.relname),
                payload: String(cString: notify.pointee.extra),
                senderPID: notify.pointee.be_pid
            ))
            PQfreemem(notify)
        }
        while !inflight.isEmpty, PQisBusy(pg) == 0 {
            let result = PQgetResult(pg)
            if inflight[0].awaitingSync {
                guard let result else { break }
                let status = PQresultStatus(result)
                PQclear(result)
                if status == PGRES_PIPELINE_SYNC {
                    let done = inflight.removeFirst()
                    if let error = done.error {
                        input.finished.append((done.completion, .failure(error)))
                    } else {
                        input.finished.append((done.completion, .success(PostgresRows(handle: done.result))))
                    }
                }
                continue
            }
            if let key = inflight[0].preparing {
                // The prepare's own result, then its NULL; the statement's results follow.
                guard let result else {
                    inflight[0].preparing = nil
                    continue
                }
                if PQresultStatus(result) != PGRES_COMMAND_OK {
                    prepared[key] = nil
                    inflight[0].error = serverError(result)
                }
                PQclear(result)
                continue
            }
            guard let result else {
                inflight[0].awaitingSync = true
                continue
            }
            switch PQresultStatus(result) {
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
                inflight[0].result = PostgresResultHandle(result)
            case PGRES_PIPELINE_ABORTED:
                PQclear(result)
                if inflight[0].error == nil {
                    inflight[0].error = StoreError(.queryFailed, "the statement was skipped because an earlier one in its pipeline failed")
                }
            case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR:
                let error = serverError(result)
                inflight[0].error = error
                // The server lost or invalidated the prepared statement (a schema change
                // altered its result's shape): prepare it afresh next time.
                if let key = inflight[0].ranPrepared, Self.invalidatesPrepared(rg_pq_sqlstate(result).map { String(cString: $0) }) {
                    prepared[key] = nil
                }
                PQclear(result)
            default:
                PQclear(result)
                inflight[0].error = StoreError(.queryFailed, "the statement returned a result the client does not handle (COPY?); use plain statements")
            }
        }
        if PQstatus(pg) == CONNECTION_BAD {
            return breakConnection(input)
        }
        return input
    }

    /// A failed result as the caller's error.
    private func serverError(_ result: OpaquePointer) -> StoreError {
        let error = StoreError.server(
            sqlState: rg_pq_sqlstate(result).map { String(cString: $0) },
            message: rg_pq_message_primary(result).map { String(cString: $0) } ?? lastError,
            detail: rg_pq_message_detail(result).map { String(cString: $0) }
        )
        if error.code == .notPrimary { refusedAsReadOnly = true }
        return error
    }

    /// SQLSTATEs after which a prepared statement must be prepared again: 26000 (no such
    /// prepared statement) and 0A000 ("cached plan must not change result type").
    static func invalidatesPrepared(_ sqlState: String?) -> Bool {
        sqlState == "26000" || sqlState == "0A000"
    }

    /// Fails every statement in flight and closes the connection.
    func breakConnection(_ input: ConnectionInput, reason: String? = nil) -> ConnectionInput {
        var input = input
        let error = StoreError(
            .connectionLost,
            reason ?? "the connection to PostgreSQL broke (server restarted or network failed); the statement may not have run, retry it",
            underlying: lastError
        )
        // A statement the server already failed keeps its own error (a read-only refusal
        // that ends the connection is reported as that refusal).
        for entry in inflight { input.finished.append((entry.completion, .failure(entry.error ?? error))) }
        inflight.removeAll()
        input.failure = error
        close()
        return input
    }

    /// Closes the connection without completing anything (the caller already did).
    func close() {
        if let pg {
            PQfinish(pg)
            self.pg = nil
        }
        noticeContext?.release()
        noticeContext = nil
        state = .closed
    }

    /// Whether the session is idle outside any transaction with nothing in flight.
    var isIdleOutsideTransaction: Bool {
        guard let pg, state == .ready, inflight.isEmpty else { return false }
        return PQtransactionStatus(pg) == PQTRANS_IDLE
    }

    var lastError: String {
        guard let pg else { return "" }
        return String(cString: PQerrorMessage(pg)).trimmingTrailingNewlines()
    }
}

/// Passes a Swift string array to C as a NULL-terminated `const char *const *`.
func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    var pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
    pointers.append(nil)
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
