import GatewayCore

/// pos-lane's options: where the gateway is and how the lane gets its connection token.
public struct LaneConfiguration: Sendable, Equatable {
    public var gateway: GatewayAddress
    public var caPath: String?
    public var serverName: String?
    /// A connection token minted by the POS backend.
    public var connectionToken: String?
    /// Or: the account's secret key, to mint the token here (as a POS backend would).
    public var secretKey: String?
    /// The location the minted token is scoped to, and the one `discover` searches.
    public var locationID: String
    public var posDeviceID: String
    public var laneLabel: String
    /// Simulated Bluetooth readers around this device (`bt-…` commands).
    public var bluetoothReaders: [SimulatedBluetoothReaderSpec] = []
    /// Or: the Unix socket of a simulated Bluetooth air that reader-sim hosts (its readers are
    /// driven there).
    public var bluetoothAirPath: String?

    public static let parser = OptionsParser(
        program: "pos-lane",
        summary: "an interactive point-of-sale lane on the client library: discover, connect (failIfInUse), collect, confirm, events, Tap to Pay on this device",
        environmentPrefix: "POS_LANE",
        options: [
            .value("gateway", "HOST:PORT", default: "127.0.0.1:7443", help: "The gateway's TLS address."),
            .value("ca", "PATH", default: "", help: "The CA certificate (PEM) that issued the gateway's certificate."),
            .value("server-name", "NAME", default: "", help: "The name the gateway's certificate must carry when it is not the host."),
            .value("connection-token", "TOKEN", default: "", help: "A connection token from your backend (gatewayctl tokens create)."),
            .value("secret-key", "KEY", default: "", help: "Or the account's secret key: the lane mints its own connection token (demo only)."),
            .value("location", "LOCATION", default: "", help: "The location to discover readers at (and to scope a minted token to)."),
            .value("pos-device-id", "ID", default: "pos-1", help: "A stable id of this point-of-sale device."),
            .value("lane", "LABEL", default: "Lane 1", help: "The lane's label, shown to other lanes when this one takes a reader."),
            .value(
                "bluetooth-readers", "MODEL:SERIAL,...", default: "",
                help: "Simulated Bluetooth readers near this device (models wisepad3, m2, chipper2x), e.g. wisepad3:WPC3-0001,m2:STRM2-0002."
            ),
            .value(
                "bluetooth-air", "PATH", default: "",
                help: "Or reach the Bluetooth readers reader-sim hosts (reader-sim --bluetooth-air PATH) through its Unix socket."
            ),
        ]
    )

    /// Parses; nil when `--help` was asked for.
    public static func parse(arguments: [String], environment: [String: String]) throws(OptionsError) -> LaneConfiguration? {
        let options = try parser.parse(arguments: arguments, environment: environment)
        if options.helpRequested { return nil }
        if let extra = options.positional.first { throw OptionsError("pos-lane: unexpected argument \"\(extra)\" (see pos-lane --help)") }
        let rawGateway = options.string("gateway") ?? "127.0.0.1:7443"
        guard let gateway = GatewayAddress(parsing: rawGateway) else {
            throw OptionsError.invalid(name: "gateway", value: rawGateway, expected: "HOST:PORT", program: "pos-lane")
        }
        let token = options.string("connection-token")
        let secret = options.string("secret-key")
        guard token != nil || secret != nil else {
            throw OptionsError("pos-lane: give --connection-token TOKEN, or --secret-key KEY to mint one (see pos-lane --help)")
        }
        var configuration = LaneConfiguration(
            gateway: gateway, caPath: options.string("ca"), serverName: options.string("server-name"),
            connectionToken: token, secretKey: secret, locationID: options.string("location") ?? "",
            posDeviceID: options.string("pos-device-id") ?? "pos-1", laneLabel: options.string("lane") ?? "Lane 1"
        )
        if let list = options.string("bluetooth-readers"), !list.isEmpty {
            for item in list.split(separator: ",") {
                guard let spec = SimulatedBluetoothReaderSpec(parsing: String(item)) else {
                    throw OptionsError.invalid(name: "bluetooth-readers", value: String(item), expected: "MODEL:SERIAL with MODEL wisepad3, m2 or chipper2x", program: "pos-lane")
                }
                configuration.bluetoothReaders.append(spec)
            }
        }
        configuration.bluetoothAirPath = options.string("bluetooth-air")
        if configuration.bluetoothAirPath != nil && !configuration.bluetoothReaders.isEmpty {
            throw OptionsError(
                "pos-lane: give --bluetooth-readers (readers simulated in this process) or --bluetooth-air PATH (readers reader-sim hosts), not both"
            )
        }
        return configuration
    }
}
