import GatewayRPC
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
    /// Reconnect by itself after an unexpected disconnect.
    public var autoReconnectOnUnexpectedDisconnect: Bool

    public init(
        locationID: String, merchantDisplayName: String = "", onBehalfOf: String = "",
        tosAcceptancePermitted: Bool = true, autoReconnectOnUnexpectedDisconnect: Bool = true
    ) {
        self.locationID = locationID
        self.merchantDisplayName = merchantDisplayName
        self.onBehalfOf = onBehalfOf
        self.tosAcceptancePermitted = tosAcceptancePermitted
        self.autoReconnectOnUnexpectedDisconnect = autoReconnectOnUnexpectedDisconnect
    }
}

extension TerminalClient {
    /// Whether `device` can be its own Tap to Pay reader: answers the device's reader, or
    /// fails with `TAP_TO_PAY_UNSUPPORTED_DEVICE` (the message says whether the model or the
    /// operating system version is the reason).
    public func discoverTapToPayReader(device: TapToPayDevice) async throws -> ReaderGatewayV1.Reader {
        var request = ReaderGatewayV1.DiscoverTapToPayReaderRequest()
        request.sessionToken = try sessionToken()
        request.device = device.message
        let response = try await connection.unary(ReaderGatewayV1.Sdk.discoverTapToPayReader, request, timeout: callTimeout, idempotent: true)
        return response.reader ?? ReaderGatewayV1.Reader()
    }

    /// Connects the session to `device`'s own Tap to Pay reader, in three steps: the gateway
    /// registers the reader to the location, accepts the account's terms when permitted and
    /// not yet accepted, admits the account on the device and issues the reader's credential;
    /// the reader's link attaches on this client's connection (``tapToPayReader``); the
    /// session discovers and connects it as any reader. Payments then work as with a smart
    /// reader; the customer taps with ``TapToPayReader/presentCard(_:)``.
    ///
    /// Errors: `LOCATION_REQUIRED`, `LOCATION_NOT_FOUND`, `TAP_TO_PAY_UNSUPPORTED_DEVICE`,
    /// `TAP_TO_PAY_READER_MERCHANT_BLOCKED` (a 4th account on this device within 24 hours),
    /// `TAP_TO_PAY_READER_TOS_ACCEPTANCE_CANCELED`, `ALREADY_CONNECTED_TO_READER`.
    @discardableResult
    public func connectTapToPayReader(
        device: TapToPayDevice, _ configuration: TapToPayConnectionConfiguration, reader options: TapToPayReader.Options = .init()
    ) async throws -> ReaderGatewayV1.ConnectTapToPayReaderResponse {
        let connect = TapToPayConnectionRequest(device: device, configuration: configuration, options: options)
        let (response, generation) = try await attachTapToPayReader(connect)
        state.withLock { state in
            state.tapToPayConnection = connect
            state.tapToPayReconnect.connected(
                readerID: response.reader?.id ?? "", generation: generation, autoReconnect: configuration.autoReconnectOnUnexpectedDisconnect
            )
        }
        return response
    }

    /// The gateway's step, the link's attach, and the session's connect to the reader.
    func attachTapToPayReader(_ connect: TapToPayConnectionRequest) async throws -> (ReaderGatewayV1.ConnectTapToPayReaderResponse, generation: UInt64) {
        var request = ReaderGatewayV1.ConnectTapToPayReaderRequest()
        request.sessionToken = try sessionToken()
        request.device = connect.device.message
        request.locationID = connect.configuration.locationID
        request.merchantDisplayName = connect.configuration.merchantDisplayName
        request.onBehalfOf = connect.configuration.onBehalfOf
        request.tosAcceptancePermitted = connect.configuration.tosAcceptancePermitted
        request.autoReconnectOnUnexpectedDisconnect = connect.configuration.autoReconnectOnUnexpectedDisconnect
        let response = try await connection.unary(ReaderGatewayV1.Sdk.connectTapToPayReader, request, timeout: callTimeout)
        guard let registered = response.reader else {
            throw RPCError(code: .internal, reason: .internal, message: "the gateway answered ConnectTapToPayReader without the reader; report this")
        }
        let reader = try await TapToPayReader.attach(
            on: try await connection.channel(), serial: registered.serialNumber, credential: response.readerCredential, options: connect.options
        )
        let previous = state.withLock { state -> TapToPayReader? in
            defer { state.tapToPayReader = reader }
            return state.tapToPayReader
        }
        previous?.stop()
        let discovered = try await discoverReaders(locationID: connect.configuration.locationID)
        guard let own = discovered.first(where: { $0.id == registered.id }) else {
            throw RPCError(code: .notFound, reason: .readerNotFound, message: "the Tap to Pay reader was not discovered at its location; connect the Tap to Pay reader again")
        }
        let connected = try await connectReader(own)
        return (response, connected.generation)
    }

    /// The app went to the background (or lost connectivity): the Tap to Pay reader cannot
    /// run, and its link ends. With `autoReconnectOnUnexpectedDisconnect` the client reports
    /// `reconnectStarted` and reconnects once the app is back in the foreground
    /// (``applicationWillEnterForeground()``): `reconnectSucceeded`, or `reconnectFailed`
    /// then `disconnected`. Without it, the gateway's `disconnected` comes; connect again.
    public func applicationDidEnterBackground() {
        let (reader, lost) = state.withLock { state -> (TapToPayReader?, TapToPayReconnectStateMachine.OnLinkLost) in
            state.inBackground = true
            let reader = state.tapToPayReader
            state.tapToPayReader = nil
            return (reader, reader == nil ? .none : state.tapToPayReconnect.linkLost())
        }
        reader?.stop()
        guard case .startReconnect(let readerID) = lost else { return }
        emit(.reconnectStarted(readerID: readerID))
        let task = Task { await self.reconnectTapToPay() }
        state.withLock { $0.background.append(task) }
    }

    /// The app is in the foreground again: a reconnect that waits for it goes on.
    public func applicationWillEnterForeground() {
        resumeForegroundWaiters(state.withLock { state in
            state.inBackground = false
            return true
        })
    }

    /// Stops a running reconnect (Stripe's `Cancelable.cancel()`): `reconnectFailed`, then
    /// `disconnected`, are reported.
    public func cancelReconnect() {
        resumeForegroundWaiters(false)
    }

    func resumeForegroundWaiters(_ value: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            defer { state.foregroundWaiters = [] }
            return state.foregroundWaiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    private func reconnectTapToPay() async {
        let foreground = await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
            let now = state.withLock { state -> Bool in
                if !state.inBackground { return true }
                state.foregroundWaiters.append(waiter)
                return false
            }
            if now { waiter.resume(returning: true) }
        }
        var events: [TerminalEvent]
        if foreground, let connect = state.withLock({ $0.tapToPayConnection }) {
            do {
                let (_, generation) = try await attachTapToPayReader(connect)
                let auto = connect.configuration.autoReconnectOnUnexpectedDisconnect
                events = state.withLock { $0.tapToPayReconnect.reconnectSucceeded(generation: generation, autoReconnect: auto) }
            } catch {
                let failure = error as? RPCError ?? RPCError(code: .unavailable, reason: .readerOffline, message: "\(error)")
                events = state.withLock { $0.tapToPayReconnect.reconnectFailed(failure) }
            }
        } else {
            let cancelled = RPCError(code: .cancelled, reason: .commandCanceled, message: "the reconnect was cancelled")
            events = state.withLock { $0.tapToPayReconnect.reconnectFailed(cancelled) }
        }
        for event in events { emit(event) }
    }

    /// The phone's own reader after ``connectTapToPayReader(device:_:reader:)``: the customer
    /// taps on it.
    public var tapToPayReader: TapToPayReader? { state.withLock { $0.tapToPayReader } }
}

/// What ``TerminalClient/connectTapToPayReader(device:_:reader:)`` was asked, kept for a reconnect.
struct TapToPayConnectionRequest: Sendable {
    var device: TapToPayDevice
    var configuration: TapToPayConnectionConfiguration
    var options: TapToPayReader.Options
}
