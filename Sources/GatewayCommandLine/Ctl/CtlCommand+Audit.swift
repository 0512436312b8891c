import GatewayCore
import GatewayWire

extension CtlCommand {
    /// `audit [list]`: the account's audit log.
    static func parseAudit(_ words: [String], _ options: ParsedOptions) throws(OptionsError) -> CtlCommand {
        let first = words.count > 1 ? words[1] : "list"
        guard first == "list" else { throw usage("unexpected argument \"\(first)\"; `audit` takes options only") }
        if words.count > 2 { throw usage("unexpected argument \"\(words[2])\"") }
        var request = ReaderGatewayV1.ListAuditEventsRequest()
        request.actions = list(options, "action")
        request.keyID = options.string("key") ?? ""
        request.readerID = options.string("reader") ?? ""
        request.locationID = options.string("location") ?? ""
        switch options.string("outcome") {
        case nil: request.outcome = .unspecified
        case "ok": request.outcome = .succeeded
        case "refused": request.outcome = .refused
        case let other?: throw OptionsError.invalid(name: "outcome", value: other, expected: "ok or refused", program: "gatewayctl")
        }
        request.createdFromUnixMs = try unixMs(options, "since")
        request.createdBeforeUnixMs = try unixMs(options, "until")
        request.limit = UInt32(try options.int("limit", in: 0...1000) ?? 0)
        request.pageToken = options.string("page-token") ?? ""
        return .listAudit(request)
    }
}
