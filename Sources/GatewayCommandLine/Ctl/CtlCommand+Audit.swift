import Foundation
import GatewayCore
import GatewayWire

extension CtlCommand {
    /// `audit [list]`: the account's audit log.
    static func parseAudit(_ words: [String], _ options: ParsedOptions) throws(OptionsError) -> CtlCommand {
        func usage(_ message: String) -> OptionsError { OptionsError("gatewayctl: \(message) (see gatewayctl --help)") }
        func time(_ name: String) throws(OptionsError) -> Int64 {
            guard let raw = options.string(name) else { return 0 }
            guard let date = ISO8601DateFormatter().date(from: raw) else {
                throw OptionsError.invalid(name: name, value: raw, expected: "an RFC 3339 time such as 2026-12-01T00:00:00Z", program: "gatewayctl")
            }
            return Int64((date.timeIntervalSince1970 * 1000).rounded())
        }
        let first = words.count > 1 ? words[1] : "list"
        guard first == "list" else { throw usage("unexpected argument \"\(first)\"; `audit` takes options only") }
        if words.count > 2 { throw usage("unexpected argument \"\(words[2])\"") }
        var request = ReaderGatewayV1.ListAuditEventsRequest()
        request.actions = (options.string("action") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        request.keyID = options.string("key") ?? ""
        request.readerID = options.string("reader") ?? ""
        request.locationID = options.string("location") ?? ""
        switch options.string("outcome") {
        case nil: request.outcome = .unspecified
        case "ok": request.outcome = .succeeded
        case "refused": request.outcome = .refused
        case let other?: throw OptionsError.invalid(name: "outcome", value: other, expected: "ok or refused", program: "gatewayctl")
        }
        request.createdFromUnixMs = try time("since")
        request.createdBeforeUnixMs = try time("until")
        request.limit = UInt32(try options.int("limit", in: 0...1000) ?? 0)
        request.pageToken = options.string("page-token") ?? ""
        return .listAudit(request)
    }
}
