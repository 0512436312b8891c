import GatewayWire

/// Short lower-case names for pos-lane's output.
enum LaneEventNames {
    static func reason(_ reason: ReaderGatewayV1.DisconnectReason) -> String {
        strip(reason.protoName, "DISCONNECT_REASON_")
    }

    static func network(_ reader: ReaderGatewayV1.Reader) -> String {
        strip(reader.networkStatus.protoName, "READER_NETWORK_STATUS_")
    }

    static func activity(_ reader: ReaderGatewayV1.Reader) -> String {
        strip(reader.activity.protoName, "READER_ACTIVITY_")
    }

    private static func strip(_ name: String?, _ prefix: String) -> String {
        guard let name else { return "unknown" }
        return (name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : name).lowercased()
    }
}
