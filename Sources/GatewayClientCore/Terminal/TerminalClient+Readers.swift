import GatewayChannel
import GatewayWire

extension TerminalClient {
    /// Lists the readers registered at a location, online and offline (one answer per call;
    /// empty when there are none), each tagged with its discovery.
    ///
    /// The discovery is complete when it answers, as in Stripe's SDKs since iOS 4.0.0:
    /// discover again whenever the list may have changed, without ``cancelDiscovery()``
    /// first. A new discovery supersedes the previous one: ``connectReader(_:failIfInUse:)``
    /// refuses readers from an earlier discovery with `STALE_DISCOVERY`, and a discovery
    /// still waiting for its answer (started by another task) fails with `DISCOVERY_CANCELED`.
    ///
    /// - Parameters:
    ///   - locationID: the location; empty for every location the connection token allows.
    ///   - filter: one reader to discover (Stripe's `DiscoveryFilter`): the answer holds that
    ///     reader alone, or nothing when none of the account's readers at the location
    ///     matches; nil for every reader of the location. A malformed filter fails with
    ///     `INVALID_REQUEST`.
    ///   - timeout: sent as `timeout_ms` (Stripe's discovery timeout; the gateway does not use
    ///     it yet) and added to this call's deadline; nil for the default.
    package func discoverReaders(
        locationID: String, filter: DiscoveryFilter? = nil, timeout: Duration? = nil, simulated: Bool = false
    ) async throws -> [DiscoveredReader] {
        var request = ReaderGatewayV1.DiscoverReadersRequest()
        request.sessionToken = try await sessionToken()
        request.locationID = locationID
        request.simulated = simulated
        request.filter = filter?.message
        if let timeout { request.timeoutMs = WireTime.nanoseconds(of: timeout) / 1_000_000 }
        let response = try await connection.unary(ReaderGatewayV1.Sdk.discoverReaders, request, timeout: callTimeout + (timeout ?? .zero))
        // A replica of a release before the filter ignores it and lists the location: only
        // the reader named is kept.
        return response.readers.filter { filter?.names($0) ?? true }.map { DiscoveredReader(wire: $0, discoveryID: response.discoveryID) }
    }

    /// Cancels the session's discovery that is still waiting for its answer (Stripe's
    /// `Cancelable.cancel()`): that ``discoverReaders(locationID:filter:timeout:simulated:)`` call
    /// fails with `DISCOVERY_CANCELED` (`canceled` for an app). A discovery that answered is
    /// complete; cancelling then does nothing, and its readers stay connectable.
    public func cancelDiscovery() async throws {
        try await terminalCall {
            var request = ReaderGatewayV1.CancelDiscoveryRequest()
            request.sessionToken = try await sessionToken()
            // No discovery id: the one waiting is not known here before it answers.
            _ = try await connection.unary(ReaderGatewayV1.Sdk.cancelDiscovery, request, timeout: callTimeout, idempotent: true)
        }
    }

    /// Connects to a reader from the latest discovery, answering the wire's response (the
    /// package's own tools and tests; an app calls ``connectReader(_:connectionConfig:)``).
    ///
    /// With `failIfInUse`, a reader mid-transaction for another lane is refused with
    /// `READER_BUSY` (ask the user, then retry with `false` to take it over); an idle reader
    /// is taken over either way and its previous lane receives `disconnected(.replaced)`.
    /// Other errors: `READER_OFFLINE`, `STALE_DISCOVERY` (the reader comes from a
    /// discovery a newer one superseded: pass one from the latest discovery),
    /// `READER_NOT_FOUND`, `ALREADY_CONNECTED_TO_READER`.
    ///
    /// When the reader has a required software update, it installs before this returns
    /// (``connectionStatus`` stays `connecting`; events `updateStarted`, then `updateProgress`
    /// 0 to 1; ``cancelReaderSoftwareUpdate()`` stops it and the connect fails with
    /// `COMMAND_CANCELED`). Update errors: `READER_SOFTWARE_UPDATE_FAILED_BATTERY_LOW`,
    /// `READER_SOFTWARE_UPDATE_FAILED`; a failed update the 30-day rule lets through connects
    /// with the response's `requiredUpdateFailure` set. The call's deadline is the payment
    /// timeout, as an install can take minutes.
    @discardableResult
    package func connectReader(_ reader: DiscoveredReader, failIfInUse: Bool = false) async throws -> ReaderGatewayV1.ConnectReaderResponse {
        var request = ReaderGatewayV1.ConnectReaderRequest()
        request.sessionToken = try await sessionToken()
        request.readerID = reader.id
        request.discoveryID = reader.discoveryID
        request.failIfInUse = failIfInUse
        feedSession { $0.connectStarted() }
        defer { feedSession { $0.connectEnded() } }
        let response = try await connection.unary(ReaderGatewayV1.Sdk.connectReader, request, timeout: paymentTimeout)
        let connected = response.reader ?? reader.wire
        feedSession {
            $0.readerConnected(connected, generation: response.generation)
            $0.latestConnection = ReaderConnectionDetails(response, fallback: reader.wire, discoveryID: reader.discoveryID)
        }
        return response
    }

    /// Discovers the one reader `filter` names and connects to it, answering the wire's response
    /// (the package's own tools and tests; an app calls ``easyConnect(_:)``), in one call (Stripe's
    /// `easyConnect`, iOS SDK 5.1): the discovery becomes the session's latest, and the
    /// connect follows ``connectReader(_:failIfInUse:)``'s rules and errors, `failIfInUse`
    /// included. When no reader of the account at the location matches, it fails with
    /// `READER_NOT_FOUND` and connects nothing.
    ///
    /// - Parameters:
    ///   - locationID: the location; empty for every location the connection token allows.
    ///   - filter: the reader, by id or serial number.
    @discardableResult
    package func easyConnect(locationID: String, filter: DiscoveryFilter, failIfInUse: Bool = false) async throws -> ReaderGatewayV1.EasyConnectResponse {
        var request = ReaderGatewayV1.EasyConnectRequest()
        request.sessionToken = try await sessionToken()
        request.locationID = locationID
        request.filter = filter.message
        request.failIfInUse = failIfInUse
        feedSession { $0.connectStarted() }
        defer { feedSession { $0.connectEnded() } }
        let response = try await connection.unary(ReaderGatewayV1.Sdk.easyConnect, request, timeout: paymentTimeout)
        if let answer = response.connection, let connected = answer.reader {
            feedSession {
                $0.readerConnected(connected, generation: answer.generation)
                $0.latestConnection = ReaderConnectionDetails(answer, fallback: connected, discoveryID: response.discoveryID)
            }
        }
        return response
    }

    /// Releases the session's reader.
    public func disconnectReader() async throws {
        try await terminalCall {
            var request = ReaderGatewayV1.DisconnectReaderRequest()
            request.sessionToken = try await sessionToken()
            _ = try await connection.unary(ReaderGatewayV1.Sdk.disconnectReader, request, timeout: callTimeout, idempotent: true)
            let waiters = feedSession { $0.readerReleased() }
            // A Tap to Pay reader is the phone: disconnecting it ends its link too.
            feedTapToPay { $0.released() }?.stop()
            for waiter in waiters { waiter.resume() }
        }
    }

    // MARK: commands

    /// Waits for the customer to present a card; the reader is "in use" until it returns (the
    /// wire's form: an app calls ``collectPaymentMethod(_:)`` with ``PaymentIntentParameters``).
    package func collectPaymentMethod(_ params: ReaderGatewayV1.CollectPaymentMethodParams) async throws -> ReaderGatewayV1.CollectPaymentMethodResponse {
        var request = ReaderGatewayV1.CollectPaymentMethodRequest()
        request.sessionToken = try await sessionToken()
        request.params = params
        if feedSession({ $0.allowsCustomerCancel }) { request.params?.customerCancellationEnabled = true }
        return try await command(ReaderGatewayV1.Sdk.collectPaymentMethod, request, timeout: paymentTimeout)
    }

    /// Confirms the payment intent; the reader is "in use" until it returns (the wire's form: an
    /// app calls ``confirmPaymentIntent(_:)`` with the collected ``PaymentIntent``).
    package func confirmPaymentIntent(_ params: ReaderGatewayV1.ConfirmPaymentIntentParams) async throws -> ReaderGatewayV1.PaymentIntentResult {
        var request = ReaderGatewayV1.ConfirmPaymentIntentRequest()
        request.sessionToken = try await sessionToken()
        request.params = params
        return try await command(ReaderGatewayV1.Sdk.confirmPaymentIntent, request, timeout: paymentTimeout).result ?? ReaderGatewayV1.PaymentIntentResult()
    }

    /// Cancels a running collect; that call ends with `canceled` (the gateway's `COMMAND_CANCELED`).
    public func cancelCollectPaymentMethod() async throws {
        try await terminalCall {
            var request = ReaderGatewayV1.CancelCollectPaymentMethodRequest()
            request.sessionToken = try await sessionToken()
            _ = try await command(ReaderGatewayV1.Sdk.cancelCollectPaymentMethod, request, timeout: callTimeout, idempotent: true)
        }
    }

    /// Shows a cart on the reader (Stripe's `setReaderDisplay`).
    public func setReaderDisplay(_ cart: Cart) async throws {
        try await terminalCall { try await setReaderDisplay(cart.message) }
    }

    /// Shows a cart on the reader, as the wire carries it.
    package func setReaderDisplay(_ cart: ReaderGatewayV1.Cart) async throws {
        var request = ReaderGatewayV1.SetReaderDisplayRequest()
        request.sessionToken = try await sessionToken()
        request.cart = cart
        _ = try await command(ReaderGatewayV1.Sdk.setReaderDisplay, request, timeout: callTimeout, idempotent: true)
    }

    /// Returns the reader to its splash screen.
    public func clearReaderDisplay() async throws {
        try await terminalCall {
            var request = ReaderGatewayV1.ClearReaderDisplayRequest()
            request.sessionToken = try await sessionToken()
            _ = try await command(ReaderGatewayV1.Sdk.clearReaderDisplay, request, timeout: callTimeout, idempotent: true)
        }
    }

    /// Reboots the reader; it disconnects and re-attaches by itself.
    public func rebootReader() async throws {
        try await terminalCall {
            var request = ReaderGatewayV1.RebootReaderRequest()
            request.sessionToken = try await sessionToken()
            _ = try await command(ReaderGatewayV1.Sdk.rebootReader, request, timeout: callTimeout)
        }
    }

    /// Installs the connected reader's available update (Stripe's `installAvailableUpdate`) and
    /// returns the version installed once the install has finished (empty when there was none).
    /// Events `updateStarted`, then `updateProgress` 0 to 1, come meanwhile. Errors:
    /// `readerBusy` (a payment runs), `readerSoftwareUpdateFailedBatteryLow`,
    /// `readerSoftwareUpdateFailed`, `canceled` (``cancelReaderSoftwareUpdate()``).
    @discardableResult
    public func installAvailableUpdate() async throws -> String {
        try await terminalCall {
            var request = ReaderGatewayV1.InstallAvailableUpdateRequest()
            request.sessionToken = try await sessionToken()
            return try await command(ReaderGatewayV1.Sdk.installAvailableUpdate, request, timeout: paymentTimeout).version
        }
    }

    /// Cancels the running software update (the `Cancelable` of Stripe's
    /// `didStartInstallingUpdate`): a required update during ``connectReader(_:failIfInUse:)``
    /// (that connect fails with `canceled`) or ``installAvailableUpdate()``. True when
    /// an install was running.
    @discardableResult
    public func cancelReaderSoftwareUpdate() async throws -> Bool {
        try await terminalCall {
            var request = ReaderGatewayV1.CancelReaderSoftwareUpdateRequest()
            request.sessionToken = try await sessionToken()
            return try await command(ReaderGatewayV1.Sdk.cancelReaderSoftwareUpdate, request, timeout: callTimeout).canceled
        }
    }

    /// Relays a reader command. When it fails because another lane took the reader, the
    /// `disconnected` event is delivered first (bounded wait), as Stripe's SDKs promise.
    func command<Request, Response>(
        _ method: ProtobufMethod<Request, Response>, _ request: Request, timeout: Duration, idempotent: Bool = false
    ) async throws -> Response {
        do {
            return try await connection.unary(method, request, timeout: timeout, idempotent: idempotent)
        } catch let error as RPCError where error.reason == .readerConnectedToAnotherSession || error.reason == .notConnectedToReader {
            await waitForDisconnectEvent(limit: .seconds(2))
            throw error
        }
    }

    /// Waits until the event stream reported the reader's loss (or `limit` passes).
    func waitForDisconnectEvent(limit: Duration) async {
        guard feedSession({ $0.awaitsDisconnectEvent }) else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    if !self.feedSession({ $0.disconnectWaiterArrived(continuation) }) { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
            // The group ends only when the waiter does: resume every queued waiter, whatever
            // the state now (the reader may have been cleared without an event, e.g. by a
            // session resumed without it); a waiter resumed early just stops waiting.
            for waiter in self.feedSession({ $0.takeDisconnectWaiters() }) { waiter.resume() }
        }
    }
}
