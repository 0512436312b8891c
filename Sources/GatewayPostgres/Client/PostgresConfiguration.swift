import CGatewayPostgres

/// Where the server is and how the client's pool behaves.
public struct PostgresConfiguration: Sendable {
    /// A libpq connection string: a URL (`postgresql://user@host/db`) or `key=value` pairs.
    ///
    /// Several hosts (`host=pg-a,pg-b`, or `postgresql://pg-a:5432,pg-b:5432/db`) are tried in
    /// order for every new connection; the client only takes a server that accepts writes
    /// (``defaultTargetSessionAttributes``), so after a failover new connections find the
    /// promoted standby. Connections still open to a server that refuses a write as
    /// read-only are dropped (``StoreError/Code/notPrimary``).
    public var connectionString: String
    /// Most connections the pool opens for statements and transactions (the
    /// LISTEN connection and the reserved connection of
    /// ``PostgresClient/executeReserved(_:_:)`` are extra).
    public var maximumConnections: Int = 8
    /// Most statements sent ahead on one connection before its earlier results
    /// arrive (libpq pipeline mode). 1 turns pipelining off.
    public var pipelineDepth: Int = 16
    /// How long a statement or transaction waits for a free connection before
    /// failing with ``StoreError/Code/timeout``.
    public var connectionWaitTimeout: Duration = .seconds(30)
    /// Reported to the server as `application_name` unless the string sets one.
    public var applicationName: String = "reader-gateway"

    /// libpq's `target_session_attrs` when the connection string does not set one: only a
    /// server that accepts writes (the primary) is taken. A string may set its own
    /// (`target_session_attrs=any` connects to whatever answers first).
    public static let defaultTargetSessionAttributes = "read-write"

    public init(connectionString: String) {
        self.connectionString = connectionString
    }

    /// The connection string's host, port, database and user, never a password.
    public var redactedDescription: String {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &error) else {
            if let error { PQfreemem(error) }
            return "(unparsable connection string)"
        }
        defer { PQconninfoFree(options) }
        var parts: [String] = []
        var option = options
        while let keyword = option.pointee.keyword {
            let key = String(cString: keyword)
            if ["host", "hostaddr", "port", "dbname", "user", "target_session_attrs"].contains(key), let value = option.pointee.val {
                parts.append("\(key)=\(String(cString: value))")
            }
            option += 1
        }
        return parts.isEmpty ? "(libpq defaults)" : parts.joined(separator: " ")
    }

    /// Checks that libpq can parse the connection string.
    public func validate() throws(StoreError) {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &error) else {
            var detail = ""
            if let error {
                detail = String(cString: error).trimmingTrailingNewlines()
                PQfreemem(error)
            }
            throw StoreError(
                .invalidConfiguration,
                "the database URL cannot be parsed; give a postgresql:// URL or key=value pairs",
                underlying: detail
            )
        }
        PQconninfoFree(options)
        guard maximumConnections >= 1, pipelineDepth >= 1 else {
            throw StoreError(.invalidConfiguration, "maximumConnections and pipelineDepth must be at least 1")
        }
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == " " { text = text.dropLast() }
        return String(text)
    }
}
