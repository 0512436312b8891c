import Foundation
import GatewayCore

extension CtlCommand {
    /// A usage error, pointing at `--help`.
    static func usage(_ message: String) -> OptionsError { OptionsError("gatewayctl: \(message) (see gatewayctl --help)") }

    /// Option `name` as an RFC 3339 time in milliseconds since 1970; 0 when it is not given.
    static func unixMs(_ options: ParsedOptions, _ name: String) throws(OptionsError) -> Int64 {
        guard let raw = options.string(name) else { return 0 }
        guard let date = ISO8601DateFormatter().date(from: raw) else {
            throw OptionsError.invalid(name: name, value: raw, expected: "an RFC 3339 time such as 2026-12-01T00:00:00Z", program: "gatewayctl")
        }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// Option `name` as a comma-separated list (empty items dropped; none when it is not given).
    static func list(_ options: ParsedOptions, _ name: String) -> [String] {
        (options.string(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
