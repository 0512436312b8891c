import GatewayCore
import GatewayWire

/// One gatewayctl command, parsed from the positional words and options.
public enum CtlCommand: Sendable, Equatable {
    case createLocation(displayName: String)
    case listLocations
    case renameLocation(locationID: String, displayName: String)
    /// Sets (nil: removes) a location's software install window.
    case setInstallWindow(locationID: String, window: ReaderGatewayV1.InstallWindow?)
    case registerByCode(code: String, label: String, locationID: String)
    case registerBySerials(serials: [String], labelPrefix: String, locationID: String, deviceType: ReaderGatewayV1.DeviceType)
    case listReaders(locationID: String, status: ReaderGatewayV1.ReaderNetworkStatus)
    case getReader(readerID: String)
    case deleteReader(readerID: String)
    case owners(locationID: String, ownedOnly: Bool)
    case history(readerID: String, limit: UInt32)
    case sessions(locationID: String)
    case release(readerID: String, expectedGeneration: UInt64?)
    /// Mints a connection token; prints the secret alone, the table with `table`.
    case createToken(locationID: String, ttl: Duration?, table: Bool = false)
    case watch(locationID: String)
    case createAccount(databaseURL: String, name: String)
    /// Every replica in the node directory (read from PostgreSQL).
    case nodes(databaseURL: String)
    case listUpdates(deviceType: ReaderGatewayV1.DeviceType)
    case addUpdate(ReaderGatewayV1.ReaderSoftwareUpdate)
    case removeUpdate(deviceType: ReaderGatewayV1.DeviceType, version: String)
    case createKey(name: String, permissions: ReaderGatewayV1.ApiKeyPermissions, locationIDs: [String], expiresUnixMs: Int64)
    case listKeys
    case rollKey(keyID: String, overlap: Duration?)
    case revokeKey(keyID: String)
    /// One page of the account's event log, newest first.
    case listEvents(ReaderGatewayV1.ListEventsRequest)
    case getEvent(eventID: String)
    /// One page of the account's audit log, newest first.
    case listAudit(ReaderGatewayV1.ListAuditEventsRequest)
    case createWebhook(ReaderGatewayV1.CreateWebhookEndpointRequest)
    case listWebhooks
    case updateWebhook(ReaderGatewayV1.UpdateWebhookEndpointRequest)
    case deleteWebhook(endpointID: String)
    case resendEvent(eventID: String, endpointID: String)
    case resendEvents(ReaderGatewayV1.ResendEventsRequest)

    /// Whether the command talks to the gateway (all but `accounts create` and `nodes`, which
    /// talk to PostgreSQL).
    public var usesGateway: Bool {
        switch self {
        case .createAccount, .nodes: false
        default: true
        }
    }

    /// The commands, for `--help`.
    public static let usage = """
    Commands:
      locations create NAME                                  create a location; prints its id (tml_...) alone
      locations list                                         list locations
      locations rename LOCATION NAME                         change a location's display name
      locations update LOCATION --install-window 02:00-05:00+01:00 | --clear-install-window
                                                             when software updates become required there (local time, UTC offset)
      readers register --code CODE --label L --location LOC  register the reader showing CODE  (alias: readers register-code CODE)
      readers register --serials A,B,C --label-prefix P --location LOC [--device-type T]
                                                             register readers by serial: "P 1", "P 2", ...  (alias: readers register-serials A,B,C)
      readers list [--location LOC] [--status online|offline]
                                                             every reader, smart and mobile: device, location, holder, battery,
                                                             software version, pending update, last seen
      readers get READER | readers delete READER
      owners [--location LOC] [--owned-only]                 who owns each reader right now  (alias: ownership)
      history READER [--limit N]                             the reader's ownership changes, newest first
      sessions [--location LOC]                              live point-of-sale sessions
      release READER [--generation N]                        take the reader from its owner
      tokens create [--location LOC] [--ttl 10m] [--table]   mint a connection token for a point-of-sale session; prints
                                                             the token alone (pst_...), its expiry and location with --table
      watch [--location LOC]                                 every reader, then each change as it happens (until interrupted);
                                                             one line each, or one JSON object per line with --json
      accounts create --database-url URL [--name NAME]       create an account in PostgreSQL; prints its secret key once
      nodes --database-url URL                               every replica: node, release, schema it knows, age, last heartbeat
      updates list [--device-type T]                         the software update catalog
      updates add --device-type T --version V [--components firmware,config,keys,incremental]
                  [--duration one_to_two_minutes] [--required-at 2026-12-01T00:00:00Z|never]
                                                             add (or replace) an update; required at that time, else optional
      updates remove --device-type T --version V             remove an update from the catalog
      keys list                                              the account's secret keys: permissions, locations, expiry, last use
      keys create NAME --permissions readers=read,tokens=write,... | --read-only
                  [--locations LOC,LOC] [--expires 2026-12-01T00:00:00Z]
                                                             create a key (resources: locations, readers, ownership, tokens,
                                                             updates, webhooks, events, keys; all=read for every one); prints its secret once
      keys roll KEY [--overlap 24h]                          a new secret; the old one works until the overlap ends (at most 7d)
      keys revoke KEY                                        the key stops working at once, on every replica
      events list [--type A,B] [--reader READER] [--location LOC] [--since TIME] [--until TIME] [--limit N] [--page-token T]
                                                             the event log, newest first; prints the next page's token last
      events get EVENT                                       one event with its object (evt_...)
      events resend EVENT --endpoint WE                      send one event to a webhook endpoint again (the same event id)
      events resend --since TIME [--until TIME] --endpoint WE
                                                             send again the events of a time range the endpoint wants (at most 10,000)
      webhooks create --url https://... [--events A,B|*] [--description TEXT]
                                                             create a webhook endpoint; prints its signing secret (whsec_...) once
      webhooks list                                          the account's webhook endpoints: URL, events, enabled or why not
      webhooks update WE [--url URL] [--events A,B|*] [--description TEXT] [--enable|--disable]
      webhooks delete WE                                     delete an endpoint and its pending deliveries
      audit [--action A,B] [--key KEY] [--reader READER] [--location LOC] [--outcome ok|refused]
            [--since TIME] [--until TIME] [--limit N] [--page-token T]
                                                             the audit log, newest first: who changed what, from where, the outcome

    Exit status: 0 ok, 64 usage, 65 bad input or not found, 69 gateway or database unavailable, 70 internal, 77 secret key or permission.
    """

    /// Parses the positional words of a command line with its options.
    public static func parse(_ words: [String], _ options: ParsedOptions) throws(OptionsError) -> CtlCommand {
        func required(_ name: String) throws(OptionsError) -> String {
            guard let value = options.string(name) else { throw usage("`\(words.prefix(2).joined(separator: " "))` needs --\(name)") }
            return value
        }
        func argument(_ index: Int, _ what: String) throws(OptionsError) -> String {
            guard words.count > index else { throw usage("`\(words.prefix(2).joined(separator: " "))` needs \(what)") }
            return words[index]
        }
        func extra(_ count: Int) throws(OptionsError) {
            if words.count > count { throw usage("unexpected argument \"\(words[count])\"") }
        }
        let location = options.string("location") ?? ""
        guard let noun = words.first else { throw usage("no command given") }
        switch (noun, words.count > 1 ? words[1] : "") {
        case ("locations", "create"):
            let name = words.dropFirst(2).joined(separator: " ")
            guard !name.isEmpty else { throw usage("`locations create` needs a NAME") }
            return .createLocation(displayName: name)
        case ("locations", "list"), ("locations", ""):
            try extra(2)
            return .listLocations
        case ("locations", "rename"):
            let id = try argument(2, "a LOCATION id")
            let name = words.dropFirst(3).joined(separator: " ")
            guard !name.isEmpty else { throw usage("`locations rename` needs a NAME") }
            return .renameLocation(locationID: id, displayName: name)
        case ("locations", "update"):
            return try parseLocationUpdate(words, options)
        case ("readers", "register"), ("readers", "register-code"), ("readers", "register-serials"):
            let sub = words[1]
            var code = options.string("code")
            var serials = options.string("serials")
            if sub == "register-code" { code = try argument(2, "a registration CODE") }
            if sub == "register-serials" { serials = try argument(2, "serial numbers A,B,C") }
            try extra(sub == "register" ? 2 : 3)
            if code != nil && serials != nil { throw usage("give either --code or --serials, not both") }
            if let code {
                return .registerByCode(code: code.uppercased(), label: options.string("label") ?? "", locationID: try required("location"))
            }
            guard let serials else { throw usage("`readers register` needs --code CODE or --serials A,B,C") }
            let list = serials.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !list.isEmpty else { throw usage("--serials names no serial number") }
            var deviceType = ReaderGatewayV1.DeviceType.unspecified
            if let raw = options.string("device-type") {
                guard let parsed = ReaderGatewayV1.DeviceType(commandLineName: raw) else {
                    throw OptionsError.invalid(name: "device-type", value: raw, expected: "bbpos_wisepos_e, stripe_s700, stripe_s710 or simulated_wisepos_e", program: "gatewayctl")
                }
                deviceType = parsed
            }
            return .registerBySerials(
                serials: list, labelPrefix: options.string("label-prefix") ?? options.string("label") ?? "", locationID: try required("location"), deviceType: deviceType
            )
        case ("readers", "list"), ("readers", ""):
            try extra(2)
            var status = ReaderGatewayV1.ReaderNetworkStatus.unspecified
            switch options.string("status") {
            case nil, "all"?: break
            case "online"?: status = .online
            case "offline"?: status = .offline
            case let other?: throw OptionsError.invalid(name: "status", value: other, expected: "online, offline or all", program: "gatewayctl")
            }
            return .listReaders(locationID: location, status: status)
        case ("readers", "get"):
            let id = try argument(2, "a READER id")
            try extra(3)
            return .getReader(readerID: id)
        case ("readers", "delete"):
            let id = try argument(2, "a READER id")
            try extra(3)
            return .deleteReader(readerID: id)
        case ("owners", _), ("ownership", _):
            try extra(1)
            return .owners(locationID: location, ownedOnly: try options.flag("owned-only"))
        case ("history", _):
            let id = try argument(1, "a READER id")
            try extra(2)
            return .history(readerID: id, limit: UInt32(try options.int("limit", in: 0...10_000) ?? 0))
        case ("sessions", _):
            try extra(1)
            return .sessions(locationID: location)
        case ("release", _):
            let id = try argument(1, "a READER id")
            try extra(2)
            let generation = try options.int("generation", in: 0...Int.max).map { UInt64($0) }
            return .release(readerID: id, expectedGeneration: generation)
        case ("tokens", "create"):
            try extra(2)
            var ttl: Duration?
            if let raw = options.string("ttl") {
                guard let parsed = DurationText.parse(raw), parsed > .zero else {
                    throw OptionsError.invalid(name: "ttl", value: raw, expected: "a duration such as 10m", program: "gatewayctl")
                }
                ttl = parsed
            }
            return .createToken(locationID: location, ttl: ttl, table: try options.flag("table"))
        case ("watch", _):
            try extra(1)
            return .watch(locationID: location)
        case ("accounts", "create"):
            try extra(2)
            return .createAccount(databaseURL: try required("database-url"), name: options.string("name") ?? "default")
        case ("nodes", _):
            try extra(1)
            return .nodes(databaseURL: try required("database-url"))
        case ("updates", _):
            return try parseUpdates(words, options)
        case ("keys", _):
            return try parseKeys(words, options)
        case ("events", _):
            return try parseEvents(words, options)
        case ("webhooks", _):
            return try parseWebhooks(words, options)
        case ("audit", _):
            return try parseAudit(words, options)
        default:
            throw usage("unknown command \"\(words.prefix(2).joined(separator: " "))\"")
        }
    }
}
