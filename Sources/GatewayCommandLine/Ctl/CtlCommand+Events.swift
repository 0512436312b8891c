import Foundation
import GatewayCore
import GatewayWire

extension CtlCommand {
    /// `events list|get`: the account's event log.
    static func parseEvents(_ words: [String], _ options: ParsedOptions) throws(OptionsError) -> CtlCommand {
        func usage(_ message: String) -> OptionsError { OptionsError("gatewayctl: \(message) (see gatewayctl --help)") }
        func time(_ name: String) throws(OptionsError) -> Int64 {
            guard let raw = options.string(name) else { return 0 }
            guard let date = ISO8601DateFormatter().date(from: raw) else {
                throw OptionsError.invalid(name: name, value: raw, expected: "an RFC 3339 time such as 2026-12-01T00:00:00Z", program: "gatewayctl")
            }
            return Int64((date.timeIntervalSince1970 * 1000).rounded())
        }
        switch words.count > 1 ? words[1] : "list" {
        case "list":
            if words.count > 2 { throw usage("unexpected argument \"\(words[2])\"") }
            var request = ReaderGatewayV1.ListEventsRequest()
            request.types = (options.string("type") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            request.readerID = options.string("reader") ?? ""
            request.locationID = options.string("location") ?? ""
            request.createdFromUnixMs = try time("since")
            request.createdBeforeUnixMs = try time("until")
            request.limit = UInt32(try options.int("limit", in: 0...1000) ?? 0)
            request.pageToken = options.string("page-token") ?? ""
            return .listEvents(request)
        case "get":
            guard words.count > 2 else { throw usage("`events get` needs an EVENT id") }
            if words.count > 3 { throw usage("unexpected argument \"\(words[3])\"") }
            return .getEvent(eventID: words[2])
        case let other:
            throw usage("unknown command \"events \(other)\"; one of events list, events get")
        }
    }
}
