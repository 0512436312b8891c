import GatewayClient
import GatewayCore
import GatewayWire

/// What reader-sim runs: which readers, where, and how they behave.
public struct SimulatorConfiguration: Sendable, Equatable {
    public var gateway: GatewayAddress
    /// The CA that issued the gateway's certificate (pinned).
    public var caPath: String?
    /// The name the gateway certificate carries, when it differs from the host.
    public var serverName: String?
    /// The readers' serial numbers, one simulated reader each.
    public var serials: [String]
    public var deviceType: ReaderGatewayV1.DeviceType
    public var softwareVersion: String
    /// How often readers heartbeat (the gateway's offline bound is 10 s by default).
    public var heartbeatInterval: Duration
    /// How long a collect takes before the presented card is read.
    public var collectDuration: Duration
    /// `--card manual`: a collect waits for a `present` (or `decline`) line on stdin before it
    /// reads the card, as a customer who has not tapped yet; `auto` reads one after the duration.
    public var cardOnCommand = false
    /// How long a confirm takes.
    public var confirmDuration: Duration
    /// How long a reboot keeps the reader away.
    public var rebootDuration: Duration
    /// The wait before re-attaching after a lost link.
    public var reconnectDelay: Duration
    /// The cap of the reconnect window: each failed attempt doubles the window from
    /// ``reconnectDelay`` up to this (see `ReconnectBackoff`).
    public var reconnectDelayMax: Duration
    /// The reader CA (certificate, key) to mint one client certificate per reader for mutual TLS.
    public var readerCACertificatePath: String?
    public var readerCAKeyPath: String?
    /// Where per-reader certificates live (`SERIAL.pem`, `SERIAL-key.pem`); minted there when missing.
    public var certificateDirectory: String?
    /// The first reader's IP address; the others count up from it.
    public var firstIPAddress: String
    /// The battery level readers start with (0 to 1); nil for readers on mains power.
    public var batteryLevel: Float?
    /// How much battery each heartbeat drains (0 for none); a reader at 0 powers off.
    public var batteryDrain: Float
    /// How long a software update takes to install (progress goes 0 to 1 over it).
    public var updateDuration: Duration
    /// Whether every software update fails halfway (READER_SOFTWARE_UPDATE_FAILED).
    public var failUpdates: Bool
    /// Where to serve the simulated Bluetooth air (a Unix-domain socket); nil for smart readers.
    public var bluetoothAirPath: String?
    /// The Bluetooth readers hosted in that air (`--bluetooth-readers`, or `--serial` with a
    /// Bluetooth `--device-type`).
    public var bluetoothReaders: [SimulatedBluetoothReaderSpec] = []
    /// Uptime after which a Bluetooth reader reboots itself (`security_reboot`).
    public var securityRebootAfter: Duration = .seconds(24 * 3600)

    /// Whether readers present client certificates.
    public var usesMutualTLS: Bool { certificateDirectory != nil || readerCAKeyPath != nil }

    /// reader-sim's options (env prefix READER_SIM).
    public static let parser = OptionsParser(
        program: "reader-sim",
        summary: "simulated smart readers for demos, tests and load: registration codes, mutual TLS, payments, fault injection from stdin",
        environmentPrefix: "READER_SIM",
        options: [
            .value("gateway", "HOST:PORT", default: "127.0.0.1:7443", help: "The gateway's TLS address."),
            .value("ca", "PATH", default: "", help: "The CA certificate (PEM) that issued the gateway's certificate; empty uses the system store."),
            .value("server-name", "NAME", default: "", help: "The name the gateway's certificate must carry when it is not the host."),
            .value("serial", "SERIAL[,SERIAL...]", default: "", help: "Serial numbers, one reader each; with --count N and one serial: SERIAL-1 ... SERIAL-N."),
            .value("count", "N", default: "1", help: "How many readers when --serial names fewer (serials PREFIX0001, PREFIX0002, ...)."),
            .value("serial-prefix", "PREFIX", default: "SIM-", help: "The serial prefix used with --count when --serial is not given."),
            .value(
                "device-type", "TYPE", default: "simulated_wisepos_e",
                help: "simulated_wisepos_e, bbpos_wisepos_e, stripe_s700, stripe_s710, or mobile (a generic reader on its own TLS link); with --bluetooth-air: bbpos_wisepad3, stripe_m2 or bbpos_chipper2x_bt."
            ),
            .value("software-version", "VERSION", default: "2.20.1.0", help: "The software version readers report."),
            .value("heartbeat-interval", "DURATION", default: "2s", help: "How often readers heartbeat (keep it under a quarter of the gateway's offline bound)."),
            .value("collect-duration", "DURATION", default: "1s", help: "How long collectPaymentMethod takes before the card is read."),
            .value("card", "auto|manual", default: "auto", help: "auto: a collect reads a card after --collect-duration; manual: it then waits for a `present SERIAL BRAND LAST4` (or `decline SERIAL [CODE]`) line on stdin, as a customer who has not tapped yet (one presented earlier is read at once)."),
            .value("confirm-duration", "DURATION", default: "500ms", help: "How long confirmPaymentIntent takes."),
            .value("reboot-duration", "DURATION", default: "1s", help: "How long a reboot keeps the reader away."),
            .value(
                "reconnect-delay", "DURATION", default: "500ms",
                help: "The first retry's window after a lost link: a random wait up to it (each failed attempt doubles it, an attach resets it)."
            ),
            .value("reconnect-delay-max", "DURATION", default: nil, help: "The largest retry window (default 16 x --reconnect-delay)."),
            .value("reader-ca-cert", "PATH", default: "", help: "The reader CA certificate for minting client certificates (default: --ca)."),
            .value("reader-ca-key", "PATH", default: "", help: "The reader CA key: mint one client certificate per reader (mutual TLS, serial registration)."),
            .value("reader-cert-ca-key", "PATH", default: "", help: "Same as --reader-ca-key."),
            .flag("mtls", help: "Mutual TLS with certificates minted from the development CA: the key is ca-key.pem next to --ca."),
            .value("cert-dir", "DIR", default: "", help: "Per-reader client certificates SERIAL.pem and SERIAL-key.pem (minted there with --reader-ca-key)."),
            .value("ip-address", "ADDRESS", default: "10.0.0.10", help: "The first reader's reported IP address; the others count up."),
            .value("battery", "LEVEL", default: "0.87", help: "The battery level readers start with, 0 to 1; `none` for readers on mains power."),
            .value(
                "battery-drain", "LEVEL", default: "0",
                help: "Battery drained per heartbeat, 0 to 1 (a reader that reaches 0 powers off); Bluetooth readers: per simulated hour (default 0.01)."
            ),
            .value("update-duration", "DURATION", default: "1s", help: "How long a software update takes to install (progress 0 to 1 over it)."),
            .flag("fail-updates", help: "Every software update fails halfway with READER_SOFTWARE_UPDATE_FAILED."),
            .value(
                "bluetooth-air", "PATH", default: "",
                help: "Host Bluetooth readers instead of smart ones, in a simulated air served on this Unix socket (pos-lane --bluetooth-air PATH connects to it)."
            ),
            .value(
                "bluetooth-readers", "MODEL:SERIAL,...", default: "",
                help: "The Bluetooth readers to host (models wisepad3, m2, chipper2x), e.g. wisepad3:WPC3-0001; or --device-type bbpos_wisepad3 with --serial."
            ),
            .value("security-reboot-after", "DURATION", default: "24h", help: "Bluetooth readers reboot themselves after this much simulated uptime (stdin `hours N` advances it)."),
        ]
    )

    /// Parses reader-sim's arguments and environment.
    public static func parse(arguments: [String], environment: [String: String]) throws(OptionsError) -> SimulatorConfiguration {
        let options = try parser.parse(arguments: arguments, environment: environment)
        return try SimulatorConfiguration(options)
    }

    public init(_ options: ParsedOptions) throws(OptionsError) {
        func duration(_ name: String) throws(OptionsError) -> Duration {
            let raw = options.string(name) ?? "0"
            guard let value = DurationText.parse(raw) else {
                throw OptionsError.invalid(name: name, value: raw, expected: "a duration such as 250ms, 10s or 2m", program: "reader-sim")
            }
            return value
        }
        let rawGateway = options.string("gateway") ?? "127.0.0.1:7443"
        guard let gateway = GatewayAddress(parsing: rawGateway) else {
            throw OptionsError.invalid(name: "gateway", value: rawGateway, expected: "HOST:PORT", program: "reader-sim")
        }
        self.gateway = gateway
        caPath = options.string("ca")
        serverName = options.string("server-name")
        let count = try options.int("count", in: 1...100_000) ?? 1
        let named = (options.string("serial") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if named.count == 1 && count > 1 {
            serials = (1...count).map { "\(named[0])-\($0)" }
        } else if !named.isEmpty {
            serials = named
        } else {
            let prefix = options.string("serial-prefix") ?? "SIM-"
            serials = (1...count).map { prefix + String(repeating: "0", count: max(0, 4 - String($0).count)) + String($0) }
        }
        guard Set(serials).count == serials.count else {
            throw OptionsError.invalid(name: "serial", value: named.joined(separator: ","), expected: "distinct serial numbers", program: "reader-sim")
        }
        let rawType = options.string("device-type") ?? "simulated_wisepos_e"
        let deviceType = try Self.deviceType(rawType)
        self.deviceType = deviceType
        softwareVersion = options.string("software-version") ?? "2.20.1.0"
        heartbeatInterval = try duration("heartbeat-interval")
        guard heartbeatInterval >= .milliseconds(10) else {
            throw OptionsError.invalid(name: "heartbeat-interval", value: options.string("heartbeat-interval") ?? "", expected: "at least 10ms", program: "reader-sim")
        }
        collectDuration = try duration("collect-duration")
        switch options.string("card")?.lowercased() ?? "auto" {
        case "auto": cardOnCommand = false
        case "manual": cardOnCommand = true
        case let other: throw OptionsError.invalid(name: "card", value: other, expected: "auto or manual", program: "reader-sim")
        }
        confirmDuration = try duration("confirm-duration")
        rebootDuration = try duration("reboot-duration")
        reconnectDelay = try duration("reconnect-delay")
        reconnectDelayMax = options.string("reconnect-delay-max") == nil ? reconnectDelay * 16 : try duration("reconnect-delay-max")
        guard reconnectDelayMax >= reconnectDelay else {
            throw OptionsError.invalid(
                name: "reconnect-delay-max", value: options.string("reconnect-delay-max") ?? "", expected: "at least --reconnect-delay", program: "reader-sim"
            )
        }
        readerCAKeyPath = options.string("reader-ca-key") ?? options.string("reader-cert-ca-key")
        if readerCAKeyPath == nil, try options.flag("mtls") {
            guard let caPath else {
                throw OptionsError.invalid(name: "mtls", value: "true", expected: "--ca naming the development CA (its ca-key.pem sits next to it)", program: "reader-sim")
            }
            let directory = caPath.contains("/") ? String(caPath[..<caPath.lastIndex(of: "/")!]) : "."
            readerCAKeyPath = directory + "/ca-key.pem"
        }
        readerCACertificatePath = options.string("reader-ca-cert") ?? (readerCAKeyPath != nil ? caPath : nil)
        if readerCAKeyPath != nil && readerCACertificatePath == nil {
            throw OptionsError.invalid(name: "reader-ca-cert", value: "", expected: "the reader CA certificate (or --ca) alongside --reader-ca-key", program: "reader-sim")
        }
        certificateDirectory = options.string("cert-dir")
        firstIPAddress = options.string("ip-address") ?? "10.0.0.10"
        func level(_ name: String, default fallback: String) throws(OptionsError) -> Float {
            let raw = options.string(name) ?? fallback
            guard let value = Float(raw), value >= 0, value <= 1 else {
                throw OptionsError.invalid(name: name, value: raw, expected: "a level from 0 to 1 such as 0.8", program: "reader-sim")
            }
            return value
        }
        batteryLevel = options.string("battery")?.lowercased() == "none" ? nil : try level("battery", default: "0.87")
        batteryDrain = try level("battery-drain", default: "0")
        updateDuration = try duration("update-duration")
        failUpdates = try options.flag("fail-updates")
        securityRebootAfter = try duration("security-reboot-after")
        try configureBluetooth(options)
    }

    /// The device type `--device-type` names. `mobile` stays what it is: a reader on a TLS link
    /// of its own that reports the generic mobile type (the software update walkthrough uses
    /// it); `tap_to_pay` is refused with what to run instead.
    static func deviceType(_ raw: String) throws(OptionsError) -> ReaderGatewayV1.DeviceType {
        let type = ReaderGatewayV1.DeviceType(commandLineName: raw) ?? SimulatedBluetoothReaderSpec(parsing: raw + ":X")?.deviceType
        switch type {
        case .tapToPay?:
            throw OptionsError(
                "reader-sim: --device-type tap_to_pay: a Tap to Pay reader is the phone itself and rides on that phone's own session; "
                    + "run `pos-lane --secret-key KEY --location LOCATION --pos-device-id PHONE` and its `tap-to-pay [MODEL OS_VERSION]` command instead"
            )
        case let type?:
            return type
        case nil:
            throw OptionsError.invalid(
                name: "device-type", value: raw,
                expected: "simulated_wisepos_e, bbpos_wisepos_e, stripe_s700, stripe_s710, mobile, or with --bluetooth-air bbpos_wisepad3, stripe_m2, bbpos_chipper2x_bt",
                program: "reader-sim"
            )
        }
    }

    /// `--bluetooth-air` and the readers it hosts: a Bluetooth model needs the air, the air
    /// needs Bluetooth models.
    private mutating func configureBluetooth(_ options: ParsedOptions) throws(OptionsError) {
        bluetoothAirPath = options.string("bluetooth-air")
        if let list = options.string("bluetooth-readers") {
            for item in list.split(separator: ",") {
                guard let spec = SimulatedBluetoothReaderSpec(parsing: item.trimmingCharacters(in: .whitespaces)) else {
                    throw OptionsError.invalid(name: "bluetooth-readers", value: String(item), expected: "MODEL:SERIAL with MODEL wisepad3, m2 or chipper2x", program: "reader-sim")
                }
                bluetoothReaders.append(spec)
            }
        } else if deviceType.isBluetoothReader {
            bluetoothReaders = serials.map { SimulatedBluetoothReaderSpec(deviceType: deviceType, serialNumber: $0.uppercased()) }
        }
        guard let path = bluetoothAirPath else {
            if deviceType.isBluetoothReader || !bluetoothReaders.isEmpty {
                throw OptionsError(
                    "reader-sim: Bluetooth readers (\(deviceType.isBluetoothReader ? deviceType.commandLineName : "--bluetooth-readers")) have no network of their own; "
                        + "give --bluetooth-air PATH to host them on a Unix socket, and pos-lane --bluetooth-air PATH to reach them"
                )
            }
            return
        }
        if options.source("device-type") != .default && !deviceType.isBluetoothReader {
            throw OptionsError(
                "reader-sim: --bluetooth-air hosts Bluetooth readers; --device-type \(deviceType.commandLineName) is a smart reader (run it without --bluetooth-air)"
            )
        }
        guard !bluetoothReaders.isEmpty else {
            throw OptionsError("reader-sim: --bluetooth-air \(path) hosts no reader; add --bluetooth-readers wisepad3:WPC3-0001 or --device-type bbpos_wisepad3 --serial WPC3-0001")
        }
        guard Set(bluetoothReaders.map(\.serialNumber)).count == bluetoothReaders.count else {
            throw OptionsError.invalid(name: "bluetooth-readers", value: bluetoothReaders.map(\.serialNumber).joined(separator: ","), expected: "distinct serial numbers", program: "reader-sim")
        }
        guard batteryLevel != nil else {
            throw OptionsError.invalid(name: "battery", value: "none", expected: "a level from 0 to 1: Bluetooth readers run on batteries", program: "reader-sim")
        }
        if options.source("software-version") == .default { softwareVersion = "2.4.0" }
        if options.source("battery-drain") == .default { batteryDrain = 0.01 }
        guard securityRebootAfter > .zero else {
            throw OptionsError.invalid(name: "security-reboot-after", value: options.string("security-reboot-after") ?? "", expected: "a duration above 0 such as 24h", program: "reader-sim")
        }
    }

    /// The IP address reader number `index` (0-based) reports.
    public func ipAddress(forReaderAt index: Int) -> String {
        var parts = firstIPAddress.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 4 else { return firstIPAddress }
        var value = ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) + index
        for position in (0..<4).reversed() {
            parts[position] = value & 0xFF
            value >>= 8
        }
        return parts.map(String.init).joined(separator: ".")
    }
}
