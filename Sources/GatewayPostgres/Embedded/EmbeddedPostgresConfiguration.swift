/// Where the embedded server keeps its files and how it runs.
///
/// Layout of ``dataDirectory``:
///
///     gateway.lock        flock held by the running gateway (holds its pid)
///     postgres/           the PostgreSQL cluster (initdb on first run)
///     postgres.log        the server's own log
///     .s.PGSQL.5432       the Unix socket, the server's only listener
public struct EmbeddedPostgresConfiguration: Sendable {
    /// The directory that holds everything (created when missing).
    public var dataDirectory: String
    /// Where `initdb` and `postgres` are; nil finds them (`pg_config --bindir`, then `/usr/lib/postgresql/*/bin`).
    public var binDirectory: String?
    /// The database the gateway uses (created when missing).
    public var databaseName: String = "reader_gateway"
    /// False trades crash safety for speed (`fsync=off`): for throwaway test servers only.
    public var durable: Bool = true
    /// The server's `max_connections`.
    public var maximumConnections: Int = 100
    /// Extra `-c name=value` server settings.
    public var settings: [String: String] = [:]
    /// How long to wait for the server to accept connections.
    public var startTimeout: Duration = .seconds(60)

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }
}
