import GatewayCore
import GatewayWire

extension CtlCommand {
    /// `events list|get`: the account's event log.
    static func parseEvents(_ words: [String], _ options: ParsedOptions) throws(OptionsError) -> CtlCommand {
        switch words.count > 1 ? words[1] : "list" {
        case "list":
            if words.count > 2 { throw usage("unexpected argument \"\(words[2])\"") }
            var request = ReaderGatewayV1.ListEventsRequest()
            request.types = list(options, "type")
            request.readerID = options.string("reader") ?? ""
            request.locationID = options.string("location") ?? ""
            request.createdFromUnixMs = try unixMs(options, "since")
            request.createdBeforeUnixMs = try unixMs(options, "until")
            request.limit = UInt32(try options.int("limit", in: 0...1000) ?? 0)
            request.pageToken = options.string("page-token") ?? ""
            return .listEvents(request)
        case "get":
            guard words.count > 2 else { throw usage("`events get` needs an EVENT id") }
            if words.count > 3 { throw usage("unexpected argument \"\(words[3])\"") }
            return .getEvent(eventID: words[2])
        case "resend":
            guard let endpoint = options.string("endpoint") else { throw usage("`events resend` needs --endpoint WE (the webhook endpoint)") }
            if words.count > 2 {
                if words.count > 3 { throw usage("unexpected argument \"\(words[3])\"") }
                if options.string("since") != nil || options.string("until") != nil {
                    throw usage("`events resend EVENT` resends one event; leave out --since and --until, or the EVENT for a range")
                }
                return .resendEvent(eventID: words[2], endpointID: endpoint)
            }
            guard options.string("since") != nil else { throw usage("`events resend` needs an EVENT id, or --since TIME for a range") }
            var request = ReaderGatewayV1.ResendEventsRequest()
            request.endpointID = endpoint
            request.createdFromUnixMs = try unixMs(options, "since")
            request.createdBeforeUnixMs = try unixMs(options, "until")
            return .resendEvents(request)
        case let other:
            throw usage("unknown command \"events \(other)\"; one of events list, events get, events resend")
        }
    }
}
