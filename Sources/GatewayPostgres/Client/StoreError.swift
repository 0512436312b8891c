import Glibc

/// Something the store could not do: connect, run a statement, start the
/// embedded server, migrate.
///
/// The ``code`` is opaque and extensible (compare it with the static members);
/// ``message`` says what happened and what to do; ``sqlState`` is the server's
/// five-character SQLSTATE when the server reported the error; ``underlying``
/// is libpq's (or the operating system's) own text.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: Sendable, Hashable {
            case connectionFailed, connectionLost, queryFailed, uniqueViolation, serializationFailure
            case timeout, closed, decodingFailed, embeddedServerFailed, dataDirectoryInUse
            case migrationFailed, databaseTooNew, invalidConfiguration, nodeNotRegistered, notPrimary
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// No connection to the server could be opened.
        public static let connectionFailed = Code(.connectionFailed)
        /// The connection broke while the statement was in flight; it may or may not have run.
        public static let connectionLost = Code(.connectionLost)
        /// The server rejected the statement (see ``StoreError/sqlState``).
        public static let queryFailed = Code(.queryFailed)
        /// SQLSTATE 23505: a unique constraint would be violated.
        public static let uniqueViolation = Code(.uniqueViolation)
        /// SQLSTATE 40001 or 40P01: a serialization failure or deadlock; retry the transaction.
        public static let serializationFailure = Code(.serializationFailure)
        /// The statement was cancelled by `statement_timeout` (57014) or waited too long for a connection.
        public static let timeout = Code(.timeout)
        /// The client was shut down.
        public static let closed = Code(.closed)
        /// A column's text could not be read as the requested type.
        public static let decodingFailed = Code(.decodingFailed)
        /// The embedded PostgreSQL server could not be created, started or stopped.
        public static let embeddedServerFailed = Code(.embeddedServerFailed)
        /// Another reader-gateway process holds the data directory.
        public static let dataDirectoryInUse = Code(.dataDirectoryInUse)
        /// A schema migration failed and was rolled back.
        public static let migrationFailed = Code(.migrationFailed)
        /// The database was migrated by a newer reader-gateway than this one.
        public static let databaseTooNew = Code(.databaseTooNew)
        /// A setting (URL, path, size) cannot be used.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// This gateway replica's node row is gone (another replica reaped it after it missed its
        /// lease): it must close its links, register again as a new node, and act on nothing it
        /// remembered.
        public static let nodeNotRegistered = Code(.nodeNotRegistered)
        /// SQLSTATE 25006 (`read_only_sql_transaction`): the server refused a write because it is
        /// not the primary (a standby, or a primary demoted by a failover). The connection is
        /// dropped and the next one looks for the primary; run the statement again.
        public static let notPrimary = Code(.notPrimary)

        public var description: String { String(describing: wrapped) }
    }

    public var code: Code
    /// What happened and what to do about it.
    public var message: String
    /// The server's SQLSTATE (for example `23505`), when it reported one.
    public var sqlState: String?
    /// The lower layer's own text (libpq's error message, `strerror`), when there is one.
    public var underlying: String?
    /// For ``Code/dataDirectoryInUse``: the pid of the process holding the directory.
    public var holder: pid_t?

    public init(_ code: Code, _ message: String, sqlState: String? = nil, underlying: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.underlying = underlying
    }

    /// Whether running the same statement (or transaction) again may succeed:
    /// a lost connection, a serialization failure or deadlock, a timeout, a server that is
    /// no longer the primary.
    public var isRetryable: Bool {
        code == .connectionLost || code == .serializationFailure || code == .timeout || code == .connectionFailed
            || code == .notPrimary
    }

    public var description: String {
        var text = "store error \(code): \(message)"
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let underlying, !underlying.isEmpty, !message.contains(underlying) { text += ": \(underlying)" }
        return text
    }

    /// Classifies a server error by its SQLSTATE.
    static func server(sqlState: String?, message: String, detail: String?) -> StoreError {
        var text = message
        if let detail, !detail.isEmpty { text += " (\(detail))" }
        let code: Code
        switch sqlState {
        case "23505": code = .uniqueViolation
        case "40001", "40P01": code = .serializationFailure
        case "57014": code = .timeout
        case "25006": code = .notPrimary
        case let state? where state.hasPrefix("08") || state == "57P01" || state == "57P02" || state == "57P03":
            code = .connectionLost
        default: code = .queryFailed
        }
        return StoreError(code, text, sqlState: sqlState, underlying: message)
    }
}
