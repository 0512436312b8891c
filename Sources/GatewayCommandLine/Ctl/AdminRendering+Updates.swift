import GatewayWire

extension AdminRendering {
    /// `one_to_two_minutes`, ... (`-` when not given).
    public static func durationBand(_ estimate: ReaderGatewayV1.UpdateDurationEstimate) -> String {
        estimate == .unspecified ? "-" : shortName(estimate.protoName, prefix: "UPDATE_DURATION_ESTIMATE_")
    }

    public static func json(_ update: ReaderGatewayV1.ReaderSoftwareUpdate) -> JSONValue {
        .object([
            "device_type": .string(update.deviceType.commandLineName), "version": .string(update.version),
            "components": .array(update.components.map { .string($0) }), "duration_estimate": .string(durationBand(update.durationEstimate)),
            "required_at_unix_ms": update.requiredAtUnixMs == 0 ? .null : .integer(update.requiredAtUnixMs),
            "required": .bool(update.required), "added_unix_ms": .integer(update.addedUnixMs),
        ])
    }

    public static func table(_ updates: [ReaderGatewayV1.ReaderSoftwareUpdate]) -> Table {
        Table(headers: ["DEVICE", "VERSION", "COMPONENTS", "DURATION", "REQUIRED AT", "ADDED"], rows: updates.map {
            [$0.deviceType.commandLineName, $0.version, dash($0.components.joined(separator: ",")), durationBand($0.durationEstimate),
             $0.requiredAtUnixMs == 0 ? "never" : time($0.requiredAtUnixMs), time($0.addedUnixMs)]
        })
    }

    /// A reader's pending update for the fleet view: `2.4.0 (required)`, `2.4.0 (optional)`, `-`.
    static func pendingUpdate(_ reader: ReaderGatewayV1.Reader) -> String {
        guard let update = reader.availableUpdate else { return "-" }
        return "\(update.version) (\(update.required ? "required" : "optional"))"
    }

    /// `87%`, or `-` for a reader without a battery (or none known).
    static func battery(_ reader: ReaderGatewayV1.Reader) -> String {
        guard let level = reader.batteryLevel else { return "-" }
        return "\(Int((level * 100).rounded()))%"
    }

    /// Who holds a reader, for the fleet view: `Lane 3 (pos-3)`.
    public static func holder(_ owner: ReaderGatewayV1.ReaderOwner?) -> String {
        guard let owner, !owner.sessionID.isEmpty else { return "-" }
        let lane = owner.laneLabel.isEmpty ? owner.sessionID : owner.laneLabel
        return owner.posDeviceID.isEmpty ? lane : "\(lane) (\(owner.posDeviceID))"
    }
}
