import GatewayChannel
import GatewayWire

/// The phone a Tap to Pay reader runs on, as the app reports it (a simulated device in tests
/// and demos: any model identifier and OS version).
public struct TapToPayDevice: Sendable, Hashable {
    /// The hardware model identifier (`iPhone15,2`).
    public var model: String
    /// The operating system version (`17.4`).
    public var osVersion: String

    public init(model: String, osVersion: String) {
        self.model = model
        self.osVersion = osVersion
    }

    /// A supported simulated device (iPhone 14 Pro on iOS 17.4).
    public static let simulatedSupported = TapToPayDevice(model: "iPhone15,2", osVersion: "17.4")

    var message: ReaderGatewayV1.TapToPayDevice {
        var device = ReaderGatewayV1.TapToPayDevice()
        device.model = model
        device.osVersion = osVersion
        return device
    }
}

/// How to connect a Tap to Pay reader (Stripe's `TapToPayConnectionConfiguration`).
public struct TapToPayConnectionConfiguration: Sendable, Hashable {
    /// Required: the location the reader is registered to at connect.
    public var locationID: String
    /// The business name on the tap screen; empty for the location's display name.
    public var merchantDisplayName: String
    /// The connected account for destination charges; empty for none.
    public var onBehalfOf: String
    /// Whether the terms may be accepted during this connect (once per account, any device).
    public var tosAcceptancePermitted: Bool
    /// Reconnect by itself after an unexpected disconnect (the app went to the background, the
    /// connection to the gateway dropped); the gateway keeps the reader's owner meanwhile.
    public var autoReconnectOnUnexpectedDisconnect: Bool
    /// How long an automatic reconnect waits (for the foreground, for the gateway) before it
    /// fails: `reconnectFailed`, then `disconnected`, and the reader is released.
    public var reconnectTimeout: Duration

    public init(
        locationID: String, merchantDisplayName: String = "", onBehalfOf: String = "",
        tosAcceptancePermitted: Bool = true, autoReconnectOnUnexpectedDisconnect: Bool = true, reconnectTimeout: Duration = .seconds(60)
    ) {
        self.locationID = locationID
        self.merchantDisplayName = merchantDisplayName
        self.onBehalfOf = onBehalfOf
        self.tosAcceptancePermitted = tosAcceptancePermitted
        self.autoReconnectOnUnexpectedDisconnect = autoReconnectOnUnexpectedDisconnect
        self.reconnectTimeout = reconnectTimeout
    }
}

extension TerminalClient {
    /// Whether `device` can be its own Tap to Pay reader: answers the device's reader, or
    /// fails with `tapToPayUnsupportedDevice` (the message says whether the model or the
    /// operating system version is the reason).
    public func discoverTapToPayReader(device: TapToPayDevice) async throws -> Reader {
        try await terminalCall {
            var request = ReaderGatewayV1.DiscoverTapToPayReaderRequest()
            request.sessionToken = try await sessionToken()
            request.device = device.message
            let response = try await connection.unary(ReaderGatewayV1.Sdk.discoverTapToPayReader, request, timeout: callTimeout, idempotent: true)
            return Reader(response.reader ?? ReaderGatewayV1.Reader())
        }
    }

    /// Connects the session to `device`'s own Tap to Pay reader, in four steps: the gateway
    /// registers the reader to the location, accepts the account's terms when permitted and
    /// not yet accepted, admits the account on the device and issues the reader's credential;
    /// on the device's first connect (or after an OS update) the device sets itself up,
    /// reported as a configuration update (`updateStarted` with components `config`, then
    /// `updateProgress` 0 to 1, while ``connectionStatus`` stays `connecting`); the reader's
    /// link attaches on this client's connection (``tapToPayReader``); the session discovers
    /// and connects it as any reader. Payments then work as with a smart reader; the customer
    /// taps with ``TapToPayReader/presentCard(_:)``. Answers the reader and what the connect
    /// did (``TapToPayConnection``: terms accepted, accounts in the window, the device's setup).
    ///
    /// Errors: `locationRequired`, `locationNotFound`, `tapToPayUnsupportedDevice`,
    /// `tapToPayReaderMerchantBlocked` (a 4th account on this device within 24 hours),
    /// `tapToPayReaderTOSAcceptanceCanceled`, `alreadyConnectedToReader`.
    @discardableResult
    public func connectTapToPayReader(
        device: TapToPayDevice, _ configuration: TapToPayConnectionConfiguration, reader options: TapToPayReader.Options = .init()
    ) async throws -> TapToPayConnection {
        try await terminalCall { try await tapToPayConnect(device: device, configuration, options) }
    }

    /// ``connectTapToPayReader(device:_:reader:)``'s steps (the call layer's errors).
    private func tapToPayConnect(
        device: TapToPayDevice, _ configuration: TapToPayConnectionConfiguration, _ options: TapToPayReader.Options
    ) async throws -> TapToPayConnection {
        feedSession { $0.connectStarted() }
        defer { feedSession { $0.connectEnded() } }
        var request = ReaderGatewayV1.ConnectTapToPayReaderRequest()
        request.sessionToken = try await sessionToken()
        request.device = device.message
        request.locationID = configuration.locationID
        request.merchantDisplayName = configuration.merchantDisplayName
        request.onBehalfOf = configuration.onBehalfOf
        request.tosAcceptancePermitted = configuration.tosAcceptancePermitted
        request.autoReconnectOnUnexpectedDisconnect = configuration.autoReconnectOnUnexpectedDisconnect
        let response = try await connection.unary(ReaderGatewayV1.Sdk.connectTapToPayReader, request, timeout: callTimeout)
        guard let registered = response.reader else {
            throw RPCError(code: .internal, reason: .internal, message: "the gateway answered ConnectTapToPayReader without the reader; report this")
        }
        if let setup = response.deviceSetup {
            try await setUpDevice(device, setup, readerID: registered.id, duration: options.setupDuration)
            // The setup's callbacks reach the delegates (on the main actor) while the status is
            // still `connecting`, before the connect goes on.
            await delegatesCaughtUp(limit: .seconds(2))
        }
        let connect = TapToPayConnectionRequest(
            device: device, configuration: configuration, options: options, serialNumber: registered.serialNumber, credential: response.readerCredential
        )
        let reader = try await TapToPayReader.attach(
            on: try await connection.channel(), serial: registered.serialNumber, credential: response.readerCredential, options: options
        )
        feedTapToPay { $0.readerAttached(reader) }?.stop()
        do {
            let discovered = try await discoverReaders(locationID: configuration.locationID)
            guard let own = discovered.first(where: { $0.id == registered.id }) else {
                throw RPCError(code: .notFound, reason: .readerNotFound, message: "the Tap to Pay reader was not discovered at its location; connect the Tap to Pay reader again")
            }
            let connected = try await connectReader(own)
            feedTapToPay { $0.connected(connect, readerID: registered.id, generation: connected.generation) }
        } catch {
            reader.end(.disconnectRequested, reconnecting: false)
            feedTapToPay { $0.connectFailed(reader) }
            throw error
        }
        return TapToPayConnection(response, reader: registered)
    }

    /// The device's setup, as Stripe shows it: a configuration update with progress. The
    /// simulated device takes `duration`, reported in quarters; then the gateway records the
    /// device as set up (the next connects skip this until the OS version changes).
    func setUpDevice(_ device: TapToPayDevice, _ setup: ReaderGatewayV1.ReaderSoftwareUpdate, readerID: String, duration: Duration) async throws {
        emit(.updateStarted(readerID: readerID, ReaderSoftwareUpdate(setup)))
        emit(.updateProgress(readerID: readerID, progress: 0))
        for quarter in 1...4 {
            try await Task.sleep(for: duration / 4)
            emit(.updateProgress(readerID: readerID, progress: Float(quarter) / 4))
        }
        var request = ReaderGatewayV1.CompleteTapToPayDeviceSetupRequest()
        request.sessionToken = try await sessionToken()
        request.device = device.message
        _ = try await connection.unary(ReaderGatewayV1.Sdk.completeTapToPayDeviceSetup, request, timeout: callTimeout, idempotent: true)
    }

    /// The phone's own reader after ``connectTapToPayReader(device:_:reader:)``: the customer
    /// taps on it.
    public var tapToPayReader: TapToPayReader? { feedTapToPay { $0.reader } }
}

/// What ``TerminalClient/connectTapToPayReader(device:_:reader:)`` was asked and answered,
/// kept for a reconnect (which attaches the reader's link again with the same credential).
struct TapToPayConnectionRequest: Sendable {
    var device: TapToPayDevice
    var configuration: TapToPayConnectionConfiguration
    var options: TapToPayReader.Options
    var serialNumber: String
    var credential: String
}
