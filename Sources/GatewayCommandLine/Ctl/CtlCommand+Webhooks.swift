import GatewayCore
import GatewayWire

extension CtlCommand {
    /// `webhooks create|list|update|delete`: the account's webhook endpoints.
    static func parseWebhooks(_ words: [String], _ options: ParsedOptions) throws(OptionsError) -> CtlCommand {
        func endpoint() throws(OptionsError) -> String {
            guard words.count > 2 else { throw usage("`webhooks \(words[1])` needs an ENDPOINT id (we_...)") }
            if words.count > 3 { throw usage("unexpected argument \"\(words[3])\"") }
            return words[2]
        }
        switch words.count > 1 ? words[1] : "list" {
        case "create":
            if words.count > 2 { throw usage("unexpected argument \"\(words[2])\"") }
            guard let url = options.string("url") else { throw usage("`webhooks create` needs --url https://...") }
            var request = ReaderGatewayV1.CreateWebhookEndpointRequest()
            request.url = url
            request.description = options.string("description") ?? ""
            request.enabledEvents = list(options, "events")
            return .createWebhook(request)
        case "list":
            if words.count > 2 { throw usage("unexpected argument \"\(words[2])\"") }
            return .listWebhooks
        case "update":
            var request = ReaderGatewayV1.UpdateWebhookEndpointRequest()
            request.endpointID = try endpoint()
            request.url = options.string("url") ?? ""
            // `--description ""` empties it; no --description keeps it.
            if let source = options.sources["description"], source != .default, let description = options.values["description"] {
                if description.isEmpty { request.clearDescription = true } else { request.description = description }
            }
            request.enabledEvents = list(options, "events")
            switch (try options.flag("enable"), try options.flag("disable")) {
            case (true, true): throw usage("give --enable or --disable, not both")
            case (true, false): request.enabledChange = .enable
            case (false, true): request.enabledChange = .disable
            case (false, false): request.enabledChange = .unchanged
            }
            return .updateWebhook(request)
        case "delete":
            return .deleteWebhook(endpointID: try endpoint())
        case let other:
            throw usage("unknown command \"webhooks \(other)\"; one of webhooks create, webhooks list, webhooks update, webhooks delete")
        }
    }
}
