import Foundation
import GatewayCore
import GatewayOperations
import GatewayService
import GatewayTransport
import GatewayWebSocket

/// Everything `reader-gateway` is configured with, from flags and
/// `READER_GATEWAY_*` environment variables (flags win).
struct ServerOptions: Sendable {
    static let parser = OptionsParser(
        program: "reader-gateway",
        summary: "a self-hosted gateway for fleets of smart card readers",
        environmentPrefix: "READER_GATEWAY",
        options: [
            .value("database-url", "URL", default: "", help: "PostgreSQL connection URL (postgresql://user:password@host/db). Empty: run an embedded PostgreSQL under --data-dir (a development default)."),
            .value("data-dir", "PATH", default: ".reader-gateway", help: "Directory of the embedded PostgreSQL (cluster, Unix socket, lock file). Unused with --database-url."),
            .value("postgres-bin-dir", "PATH", default: "", help: "Directory with initdb and postgres for the embedded server. Empty: pg_config --bindir, then /usr/lib/postgresql/*/bin."),
            .value("database-pool-size", "N", default: "8", help: "Most PostgreSQL connections the gateway opens for statements."),
            .value("connect-batches-in-flight", "N", default: "1", help: "Ownership claims (lanes' connects) sent to PostgreSQL at once, at most --database-pool-size; connects that arrive meanwhile leave together in the next one, as one statement and one commit. Raise it for a PostgreSQL server with many idle cores and a high round-trip time."),
            .value("node-name", "NAME", default: "", help: "This replica's name in the node directory (its node id adds a random suffix per start). Empty: the host name."),
            .value("node-lease", "DURATION", default: "10s", help: "A replica silent in the node directory for this long is dead: its readers may re-attach elsewhere and keep their owners."),
            .value("internal-address", "ADDRESS", default: "", help: "Address of the replica-to-replica listener (mutual TLS, internal CA kept in PostgreSQL). Empty: --address."),
            .value("internal-port", "PORT", default: "7444", help: "Port of the replica-to-replica listener; 0 picks a free one (logged)."),
            .value("advertise-address", "ADDRESS", default: "", help: "The address other replicas dial to reach this one (the pod IP). Empty: --internal-address, which must then not be 0.0.0.0 or ::."),
            .value("ops-address", "ADDRESS", default: "127.0.0.1", help: "Address of the ops HTTP endpoint (/healthz, /readyz, /metrics): an IPv4 or IPv6 literal; 0.0.0.0 in a container."),
            .value("ops-port", "PORT", default: "", help: "Port of the ops HTTP endpoint (the container image sets 9090); 0 picks a free one (logged). Empty: no ops endpoint."),
            .value("drain-load-balancer-seconds", "SECONDS", default: "0", help: "On SIGTERM, seconds to keep serving while /readyz fails, so load balancers stop sending (the chart sets 5)."),
            .value("drain-deadline-seconds", "SECONDS", default: "20", help: "On SIGTERM, seconds in-flight commands may take after peers are told to go away."),
            .value("address", "ADDRESS", default: "127.0.0.1", help: "Address of the gateway's TLS port (readers, lanes, admins): an IPv4 or IPv6 literal; 0.0.0.0 in a container."),
            .value("port", "PORT", default: "7443", help: "The gateway's TLS port; 0 picks a free one (logged)."),
            .value("tls-cert", "PATH", default: "", help: "Server certificate chain (PEM). Empty with --tls-key empty: a development CA and certificate under --data-dir/tls (dev defaults)."),
            .value("tls-key", "PATH", default: "", help: "Private key of --tls-cert (PEM)."),
            .value("tls-ticket-keys", "PATH[,PATH...]", default: "", help: "Session ticket key files (80 random bytes each, `openssl rand 80`, or their base64), the same on every replica: a reader that re-attaches to any replica resumes its TLS 1.3 session instead of a full handshake with its certificate. The first key issues tickets; the others (up to 3, e.g. the previous key during a rotation) still resume. Empty: each replica's own random key (a reader resumes only on the replica that issued its ticket, until that replica restarts)."),
            .value("tls-ticket-lifetime", "DURATION", default: "24h", help: "How long a session ticket resumes after it was issued (at most 7d); the reader's certificate expiry and its registration are checked again on every resumption."),
            .value("reader-ca", "PATH", default: "", help: "CA (PEM) whose client certificates prove reader serial numbers (mutual TLS). Empty: the development CA when it is in use, else no reader certificates."),
            .value("reader-offline-bound", "DURATION", default: "10s", help: "A reader silent for this long is offline and its owner is told (e.g. 10s, 3s)."),
            .value("session-lease", "DURATION", default: "30s", help: "How long a lane's session lives without a connection (its resume window)."),
            .value("event-loops", "N", default: "2", help: "Event loop threads of the TLS port."),
            .value("max-handshaking", "N", default: "1024", help: "TLS handshakes in flight at once; a new connection over it closes the oldest one that has not sent its ClientHello."),
            .value("max-handshaking-per-source", "N", default: "64", help: "TLS handshakes in flight at once from one client address (IPv6: one /64). Behind a proxy that hides client addresses, set it to --max-handshaking."),
            .value("release-buffers-after", "DURATION", default: "20ms", help: "A connection quiet this long releases its TLS record buffers (about 34 KiB) and its link's buffers until its next message; off: keep them."),
            .value("auth-failures-per-source", "BURST/PERIOD", default: "20/6s", help: "Failed authentications (wrong or retired secret keys, console sign-ins and sessions) one client address (IPv6: one /64) may make at once, then one per PERIOD, shared by every replica; past it the address is locked out (PROTOCOL.md section 22). Behind a proxy that hides client addresses, raise it."),
            .value("auth-failures-per-account", "BURST/PERIOD", default: "50/2s", help: "Failed authentications that name one account (secrets of its keys that were rolled, revoked or expired) at once, then one per PERIOD."),
            .value("websocket-origins", "ORIGINS", default: "", help: "Browser origins allowed to open a WebSocket on the TLS port (PROTOCOL.md section 15), comma-separated scheme://host[:port] (e.g. https://pos.example.com); '*' allows any (development only). Empty: none; clients that send no Origin are not browsers and always may."),
            .value("webhook-ca-file", "PATH", default: "", help: "CA certificates (PEM) webhook receivers may chain to, for receivers with a private CA. Empty: the system trust store."),
            .flag("webhook-allow-private-addresses", help: "Deliver webhooks to loopback, link-local, private and unique-local addresses too (receivers on the operator's own network). Off: such endpoints are refused after name resolution (SSRF guard)."),
            .value("webhook-timeout", "DURATION", default: "10s", help: "Deadline of one webhook attempt: resolve, connect, TLS handshake, request, the answer's status line and headers."),
            .value("webhook-retry-base", "DURATION", default: "30s", help: "Backoff after a webhook's first failed attempt; it doubles after each further failure (with jitter), up to 6 hours."),
            .value("webhook-retry-window", "DURATION", default: "72h", help: "How long an endpoint may keep failing before it is disabled (with a webhook_endpoint.disabled event) and its pending deliveries given up."),
            .value("webhook-lease", "DURATION", default: "60s", help: "How long a claimed webhook delivery stays with this replica; after it another replica may send it (this one died). More than --webhook-timeout."),
            .value("webhook-concurrency", "N", default: "32", help: "Webhook deliveries in flight on this replica at once (at most 4 to one endpoint)."),
            .value("log-level", "LEVEL", default: "info", help: "Lowest level written: trace, debug, info, notice, warning, error, critical."),
            .value("log-format", "FORMAT", default: "logfmt", help: "Log line format: logfmt or json."),
        ]
    )

    var databaseURL: String?
    var dataDirectory: String
    var postgresBinDirectory: String?
    var databasePoolSize: Int
    var connectBatchesInFlight: Int
    var nodeName: String
    var nodeLease: Duration
    var internalAddress: String
    var internalPort: Int
    var advertiseAddress: String?
    var opsAddress: String
    var opsPort: Int?
    var drain: DrainConfiguration
    var address: String
    var port: Int
    var tlsCertificatePath: String?
    var tlsKeyPath: String?
    /// `--tls-ticket-keys`, loaded (nil: OpenSSL's own key per replica).
    var ticketKeys: TLSTicketKeys?
    var ticketLifetime: Duration
    var readerCAPath: String?
    var readerOfflineBound: Duration
    var sessionLease: Duration
    var eventLoops: Int
    var maxHandshaking: Int
    var maxHandshakingPerSource: Int
    var releaseBuffersAfter: Duration?
    /// `--auth-failures-per-source` and `--auth-failures-per-account`.
    var authFailuresPerSource: (burst: Int, period: Duration)
    var authFailuresPerAccount: (burst: Int, period: Duration)
    var webSocketOrigins: OriginAllowList
    var webhooks: WebhookDeliveryConfiguration
    var logLevel: Logger.Level
    var logFormat: LogFormat
    var helpRequested: Bool

    static func parse(arguments: [String], environment: [String: String]) throws(OptionsError) -> ServerOptions {
        let options = try parser.parse(arguments: arguments, environment: environment)
        if let extra = options.positional.first {
            throw OptionsError("reader-gateway: unexpected argument \(extra.debugDescription) (see reader-gateway --help)")
        }
        let levelName = options.string("log-level") ?? "info"
        guard let level = Logger.Level(name: levelName) else {
            throw OptionsError("reader-gateway: --log-level \(levelName.debugDescription) is not valid: expected one of trace, debug, info, notice, warning, error, critical")
        }
        let certificate = options.string("tls-cert")
        let key = options.string("tls-key")
        guard (certificate == nil) == (key == nil) else {
            throw OptionsError("reader-gateway: give both --tls-cert and --tls-key, or neither (for the development CA)")
        }
        let offlineBound = try options.duration("reader-offline-bound") ?? .seconds(10)
        guard offlineBound >= .milliseconds(200) else {
            throw OptionsError("reader-gateway: --reader-offline-bound must be at least 200ms")
        }
        let lease = try options.duration("session-lease") ?? .seconds(30)
        guard lease >= .seconds(1) else { throw OptionsError("reader-gateway: --session-lease must be at least 1s") }
        let nodeLease = try options.duration("node-lease") ?? .seconds(10)
        guard nodeLease >= .milliseconds(500) else { throw OptionsError("reader-gateway: --node-lease must be at least 500ms") }
        let address = options.string("address") ?? "127.0.0.1"
        let nodeName = options.string("node-name") ?? (ProcessInfo.processInfo.hostName.isEmpty ? "node" : ProcessInfo.processInfo.hostName)
        guard !nodeName.contains(where: \.isWhitespace) else {
            throw OptionsError("reader-gateway: --node-name \(nodeName.debugDescription) must not contain spaces")
        }
        let poolSize = try options.int("database-pool-size", in: 1...1000) ?? 8
        let connectBatches = try options.int("connect-batches-in-flight", in: 1...1000) ?? 1
        guard connectBatches <= poolSize else {
            throw OptionsError(
                "reader-gateway: --connect-batches-in-flight \(connectBatches) is more than --database-pool-size \(poolSize): each batch in flight holds a connection; lower it or raise the pool"
            )
        }
        let origins: OriginAllowList
        switch OriginAllowList.parse(options.string("websocket-origins") ?? "") {
        case .success(let list): origins = list
        case .failure(let error): throw OptionsError("reader-gateway: --websocket-origins: \(error)")
        }
        let webhooks = try webhookConfiguration(options)
        let ticketKeys = try ticketKeys(options)
        let ticketLifetime = try options.duration("tls-ticket-lifetime") ?? TLSServerConfiguration.defaultTicketLifetime
        guard ticketLifetime >= .seconds(1), ticketLifetime <= .seconds(7 * 86_400) else {
            throw OptionsError("reader-gateway: --tls-ticket-lifetime must be between 1s and 7d (TLS 1.3's limit)")
        }
        return ServerOptions(
            databaseURL: options.string("database-url"),
            dataDirectory: options.string("data-dir") ?? ".reader-gateway",
            postgresBinDirectory: options.string("postgres-bin-dir"),
            databasePoolSize: poolSize,
            connectBatchesInFlight: connectBatches,
            nodeName: nodeName,
            nodeLease: nodeLease,
            internalAddress: options.string("internal-address") ?? address,
            internalPort: try options.int("internal-port", in: 0...65535) ?? 7444,
            advertiseAddress: options.string("advertise-address"),
            opsAddress: options.string("ops-address") ?? "127.0.0.1",
            opsPort: try options.int("ops-port", in: 0...65535),
            drain: DrainConfiguration(
                loadBalancerWindow: try options.duration("drain-load-balancer-seconds") ?? .zero,
                inFlightDeadline: try options.duration("drain-deadline-seconds") ?? .seconds(20)
            ),
            address: address,
            port: try options.int("port", in: 0...65535) ?? 7443,
            tlsCertificatePath: certificate,
            tlsKeyPath: key,
            ticketKeys: ticketKeys,
            ticketLifetime: ticketLifetime,
            readerCAPath: options.string("reader-ca"),
            readerOfflineBound: offlineBound,
            sessionLease: lease,
            eventLoops: try options.int("event-loops", in: 1...256) ?? 2,
            maxHandshaking: try options.int("max-handshaking", in: 1...1_000_000) ?? 1_024,
            maxHandshakingPerSource: try options.int("max-handshaking-per-source", in: 1...1_000_000) ?? 64,
            releaseBuffersAfter: try options.durationOrOff("release-buffers-after") ?? ConnectionLimits.defaultReleaseBuffersAfter,
            authFailuresPerSource: try options.burstPerPeriod("auth-failures-per-source") ?? (20, .seconds(6)),
            authFailuresPerAccount: try options.burstPerPeriod("auth-failures-per-account") ?? (50, .seconds(2)),
            webSocketOrigins: origins,
            webhooks: webhooks,
            logLevel: level,
            logFormat: try options.choice("log-format", as: LogFormat.self) ?? .logfmt,
            helpRequested: options.helpRequested
        )
    }

    /// `--tls-ticket-keys`: comma-separated files, the issuing key first.
    static func ticketKeys(_ options: ParsedOptions) throws(OptionsError) -> TLSTicketKeys? {
        let paths = (options.string("tls-ticket-keys") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !paths.isEmpty else { return nil }
        do {
            return try TLSTicketKeys.load(paths: paths)
        } catch {
            throw OptionsError("reader-gateway: --tls-ticket-keys: \(error)")
        }
    }

    static func webhookConfiguration(_ options: ParsedOptions) throws(OptionsError) -> WebhookDeliveryConfiguration {
        var webhooks = WebhookDeliveryConfiguration()
        webhooks.trustedCAPath = options.string("webhook-ca-file")
        if let path = webhooks.trustedCAPath, !FileManager.default.isReadableFile(atPath: path) {
            throw OptionsError("reader-gateway: --webhook-ca-file \(path.debugDescription) cannot be read; give a PEM file of CA certificates")
        }
        webhooks.allowPrivateAddresses = try options.flag("webhook-allow-private-addresses")
        webhooks.requestTimeout = try options.duration("webhook-timeout") ?? .seconds(10)
        let base = try options.duration("webhook-retry-base") ?? .seconds(30)
        webhooks.retryBase = base
        webhooks.retryWindow = try options.duration("webhook-retry-window") ?? .seconds(3 * 86_400)
        webhooks.leaseDuration = try options.duration("webhook-lease") ?? .seconds(60)
        webhooks.maximumInFlight = try options.int("webhook-concurrency", in: 1...10_000) ?? 32
        guard webhooks.requestTimeout >= .milliseconds(100), base >= .milliseconds(1), webhooks.retryWindow >= .seconds(1) else {
            throw OptionsError("reader-gateway: --webhook-timeout must be at least 100ms, --webhook-retry-base at least 1ms, --webhook-retry-window at least 1s")
        }
        guard webhooks.leaseDuration > webhooks.requestTimeout else {
            throw OptionsError("reader-gateway: --webhook-lease must be longer than --webhook-timeout: a delivery still in flight must not be claimed again")
        }
        return webhooks
    }
}
