import GatewayCore

/// A whole gatewayctl command line: where the gateway is, how to authenticate, the command.
public struct CtlInvocation: Sendable, Equatable {
    public var command: CtlCommand
    public var gateway: GatewayAddress
    public var caPath: String?
    public var serverName: String?
    public var secretKey: String?
    public var json: Bool
    public var timeout: Duration

    /// gatewayctl's options (env prefix GATEWAYCTL; the secret key also from READER_GATEWAY_SECRET_KEY).
    public static let parser = OptionsParser(
        program: "gatewayctl",
        summary: "fleet administration of a ReaderGateway: locations, reader registration, ownership, sessions, tokens, software updates",
        environmentPrefix: "GATEWAYCTL",
        options: [
            .value("gateway", "HOST:PORT", default: "127.0.0.1:7443", help: "The gateway's TLS address."),
            .value("ca", "PATH", default: "", help: "The CA certificate (PEM) that issued the gateway's certificate; empty uses the system store."),
            .value("server-name", "NAME", default: "", help: "The name the gateway's certificate must carry when it is not the host."),
            .value("secret-key", "KEY", default: "", help: "The account's secret key (sk_...); also READER_GATEWAY_SECRET_KEY. Prefer the environment: flags show in ps."),
            .flag("json", help: "Print one JSON document instead of a table."),
            .value("timeout", "DURATION", default: "15s", help: "The deadline of each call."),
            .value("location", "LOCATION", default: "", help: "A location id (tml_...)."),
            .value("label", "LABEL", default: "", help: "The label of a reader registered by code."),
            .value("label-prefix", "PREFIX", default: "", help: "Readers registered by serial are labelled PREFIX 1, PREFIX 2, ..."),
            .value("code", "CODE", default: "", help: "The registration code a reader displays."),
            .value("serials", "A,B,C", default: "", help: "Serial numbers, comma-separated."),
            .value("device-type", "TYPE", default: "", help: "The device type of readers registered by serial."),
            .value("status", "STATUS", default: "", help: "online, offline or all (readers list)."),
            .flag("owned-only", help: "Only readers that have an owner (owners)."),
            .value("limit", "N", default: "", help: "At most N entries (history, events list, audit)."),
            .value("type", "A,B", default: "", help: "Event types, comma-separated, e.g. reader.offline,reader.ownership.lost (events list)."),
            .value("reader", "READER", default: "", help: "Only events or audit rows about this reader (events list, audit)."),
            .value("since", "TIME", default: "", help: "Only events or audit rows created at or after this RFC 3339 time (events list, audit)."),
            .value("until", "TIME", default: "", help: "Only events or audit rows created before this RFC 3339 time (events list, audit)."),
            .value("page-token", "TOKEN", default: "", help: "The next page of a list, as the previous page printed it (events list, audit)."),
            .value("action", "A,B", default: "", help: "Audited actions, comma-separated, e.g. ForceReleaseReader,RevokeApiKey (audit)."),
            .value("key", "KEY", default: "", help: "Only audit rows of this key (key_...) (audit)."),
            .value("outcome", "OUTCOME", default: "", help: "ok or refused: only changes that succeeded, or only refusals (audit)."),
            .value("generation", "N", default: "", help: "Release only if the ownership generation is still N (release)."),
            .value("ttl", "DURATION", default: "", help: "How long a connection token lives (tokens create)."),
            .flag("table", help: "Print the token with its expiry and location as a table instead of the token alone (tokens create)."),
            .value("database-url", "URL", default: "", help: "PostgreSQL connection string (accounts create, nodes)."),
            .value("name", "NAME", default: "", help: "The account name (accounts create)."),
            .value("version", "VERSION", default: "", help: "A software version such as 2.4.0 (updates add, updates remove)."),
            .value("components", "A,B", default: "", help: "What an update changes: incremental, firmware, config, keys (updates add)."),
            .value("duration", "BAND", default: "", help: "less_than_one_minute, one_to_two_minutes, two_to_five_minutes or five_to_fifteen_minutes (updates add)."),
            .value("required-at", "TIME", default: "", help: "When an update becomes required, RFC 3339 (2026-12-01T00:00:00Z), or never (updates add)."),
            .value("install-window", "START-END±HH:MM", default: "", help: "A location's software install window, local time and UTC offset, e.g. 02:00-05:00+01:00 (locations update)."),
            .flag("clear-install-window", help: "Remove a location's install window (locations update)."),
            .value("permissions", "R=LEVEL,...", default: "", help: "A key's permissions, resource=none|read|write, e.g. readers=read,tokens=write or all=read (keys create)."),
            .flag("read-only", help: "Read on every resource, change nothing (keys create)."),
            .value("locations", "LOC,LOC", default: "", help: "Limit a key to these locations (keys create)."),
            .value("expires", "TIME", default: "", help: "When a key stops working, RFC 3339 (keys create)."),
            .value("url", "URL", default: "", help: "A webhook endpoint's https:// URL (webhooks create, webhooks update)."),
            .value("events", "A,B", default: "", help: "Event types a webhook endpoint wants, comma-separated, or * for all (webhooks create, webhooks update)."),
            .value("description", "TEXT", default: "", help: "A webhook endpoint's description (webhooks create, webhooks update)."),
            .flag("enable", help: "Enable a webhook endpoint (webhooks update)."),
            .flag("disable", help: "Disable a webhook endpoint (webhooks update)."),
            .value("endpoint", "ENDPOINT", default: "", help: "A webhook endpoint (we_...) (events resend)."),
            .value("overlap", "DURATION", default: "", help: "How long a rolled key's old secret keeps working: default 24h, at most 7d (keys roll)."),
        ]
    )

    public static func helpText() -> String {
        parser.helpText().replacingOccurrences(of: "Usage: gatewayctl [options]", with: "Usage: gatewayctl [options] COMMAND [ARGUMENTS]") + "\n" + CtlCommand.usage
    }

    /// Parses the arguments and environment; nil when `--help` was asked for.
    public static func parse(arguments: [String], environment: [String: String]) throws(OptionsError) -> CtlInvocation? {
        let options = try parser.parse(arguments: arguments, environment: environment)
        if options.helpRequested { return nil }
        let command = try CtlCommand.parse(options.positional, options)
        let rawGateway = options.string("gateway") ?? "127.0.0.1:7443"
        guard let gateway = GatewayAddress(parsing: rawGateway) else {
            throw OptionsError.invalid(name: "gateway", value: rawGateway, expected: "HOST:PORT", program: "gatewayctl")
        }
        let rawTimeout = options.string("timeout") ?? "15s"
        guard let timeout = DurationText.parse(rawTimeout), timeout > .zero else {
            throw OptionsError.invalid(name: "timeout", value: rawTimeout, expected: "a duration such as 15s", program: "gatewayctl")
        }
        let secretKey = options.string("secret-key") ?? environment["READER_GATEWAY_SECRET_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        if command.usesGateway && secretKey == nil {
            throw OptionsError("gatewayctl: no secret key: pass --secret-key or set GATEWAYCTL_SECRET_KEY (or READER_GATEWAY_SECRET_KEY)")
        }
        return CtlInvocation(
            command: command, gateway: gateway, caPath: options.string("ca"), serverName: options.string("server-name"),
            secretKey: secretKey, json: try options.flag("json"), timeout: timeout
        )
    }
}
