import Foundation
import GatewayCore
import GatewayWire

extension CtlCommand {
    /// `updates list|add|remove`: the account's software update catalog.
    static func parseUpdates(_ words: [String], _ options: ParsedOptions) throws(OptionsError) -> CtlCommand {
        func deviceType(required: Bool) throws(OptionsError) -> ReaderGatewayV1.DeviceType {
            guard let raw = options.string("device-type") else {
                if required { throw usage("`updates \(words.count > 1 ? words[1] : "")` needs --device-type") }
                return .unspecified
            }
            guard let parsed = ReaderGatewayV1.DeviceType(commandLineName: raw) else {
                throw OptionsError.invalid(
                    name: "device-type", value: raw, expected: "bbpos_wisepos_e, stripe_s700, stripe_s710, simulated_wisepos_e, mobile or tap_to_pay", program: "gatewayctl"
                )
            }
            return parsed
        }
        func version() throws(OptionsError) -> String {
            guard let version = options.string("version") else { throw usage("`updates \(words[1])` needs --version") }
            return version
        }
        if words.count > 2 { throw usage("unexpected argument \"\(words[2])\"") }
        switch words.count > 1 ? words[1] : "list" {
        case "list":
            return .listUpdates(deviceType: try deviceType(required: false))
        case "add":
            var update = ReaderGatewayV1.ReaderSoftwareUpdate()
            update.deviceType = try deviceType(required: true)
            update.version = try version()
            update.components = (options.string("components") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            if let raw = options.string("duration") {
                guard let band = updateDurationBand(named: raw) else {
                    throw OptionsError.invalid(
                        name: "duration", value: raw, expected: "less_than_one_minute, one_to_two_minutes, two_to_five_minutes or five_to_fifteen_minutes", program: "gatewayctl"
                    )
                }
                update.durationEstimate = band
            }
            if let raw = options.string("required-at"), raw.lowercased() != "never" {
                guard let date = ISO8601DateFormatter().date(from: raw) else {
                    throw OptionsError.invalid(name: "required-at", value: raw, expected: "an RFC 3339 time such as 2026-12-01T00:00:00Z, or never", program: "gatewayctl")
                }
                update.requiredAtUnixMs = Int64((date.timeIntervalSince1970 * 1000).rounded())
            }
            return .addUpdate(update)
        case "remove":
            return .removeUpdate(deviceType: try deviceType(required: true), version: try version())
        case let other:
            throw usage("unknown command \"updates \(other)\"; one of updates list, updates add, updates remove")
        }
    }

    /// The duration band named `name` on the command line (`one_to_two_minutes`).
    static func updateDurationBand(named name: String) -> ReaderGatewayV1.UpdateDurationEstimate? {
        ReaderGatewayV1.UpdateDurationEstimate.knownValues.first { $0 != .unspecified && AdminRendering.durationBand($0) == name.lowercased() }
    }
}
