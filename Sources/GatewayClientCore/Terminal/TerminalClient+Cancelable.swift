import GatewayChannel
import GatewayWire
import Synchronization

/// A running operation the app can stop (Stripe Terminal's `Cancelable`), as
/// ``TerminalClient/discoverReaders(_:delegate:completion:)`` and
/// ``TerminalClient/collectPaymentMethod(_:completion:)`` return it.
public final class Cancelable: Sendable {
    private let done = Atomic<Bool>(false)
    private let stop: @Sendable () async throws -> Void

    init(stop: @escaping @Sendable () async throws -> Void) {
        self.stop = stop
    }

    /// Whether the operation has ended (its completion was called); cancelling then does nothing.
    public var completed: Bool { done.load(ordering: .acquiring) }

    /// Stops the operation: its completion receives a ``TerminalError`` with code `canceled`.
    /// Does nothing once it has completed.
    public func cancel() async throws {
        guard !completed else { return }
        try await stop()
    }

    func complete() { done.store(true, ordering: .releasing) }
}

/// Where a discovery looks (Stripe's `InternetDiscoveryConfiguration`).
public struct InternetDiscoveryConfiguration: Sendable, Hashable {
    /// The location; empty for every location the connection token allows.
    public var locationID: String
    /// One reader to discover (Stripe's `DiscoveryFilter`); nil for every reader of the location.
    public var filter: DiscoveryFilter?
    public var simulated: Bool
    /// Stripe's discovery timeout: sent as `timeout_ms` (the gateway does not use it yet) and
    /// added to the call's deadline; nil for the default.
    public var timeout: Duration?

    public init(locationID: String = "", filter: DiscoveryFilter? = nil, simulated: Bool = false, timeout: Duration? = nil) {
        self.locationID = locationID
        self.filter = filter
        self.simulated = simulated
        self.timeout = timeout
    }
}

/// Discover one reader and connect it in one call (Stripe's `InternetEasyConnectConfiguration`),
/// for ``TerminalClient/easyConnect(_:)``.
public struct InternetEasyConnectConfiguration: Sendable {
    /// The location and the reader, by id or serial number.
    public var locationID: String
    public var filter: DiscoveryFilter
    public var connectionConfiguration: InternetConnectionConfiguration

    public init(locationID: String = "", filter: DiscoveryFilter, connectionConfiguration: InternetConnectionConfiguration = .init()) {
        self.locationID = locationID
        self.filter = filter
        self.connectionConfiguration = connectionConfiguration
    }
}

/// How to connect an internet reader (Stripe's `InternetConnectionConfiguration`).
public struct InternetConnectionConfiguration: Sendable {
    /// Refuse a reader mid-transaction for another lane (`readerBusy`) instead of taking it
    /// over; an idle reader is taken over either way. Stripe recommends true first.
    public var failIfInUse: Bool
    /// Let the customer cancel a collect on the reader (sent with every collect while connected).
    public var allowCustomerCancel: Bool
    /// Hears the reader's disconnect and reconnects, on the main actor (held weakly).
    public weak var delegate: (any ReaderDelegate)?

    public init(failIfInUse: Bool = false, allowCustomerCancel: Bool = false, delegate: (any ReaderDelegate)? = nil) {
        self.failIfInUse = failIfInUse
        self.allowCustomerCancel = allowCustomerCancel
        self.delegate = delegate
    }
}

/// Hears what a discovery found (Stripe's `DiscoveryDelegate`), on the main actor: a
/// `@MainActor` view model conforms as it is.
@MainActor
public protocol DiscoveryDelegate: AnyObject, Sendable {
    /// The readers found (every reader of the location, online and offline).
    func terminal(_ terminal: TerminalClient, didUpdateDiscoveredReaders readers: [DiscoveredReader])
}

extension TerminalClient {
    /// Discovers readers (``discoverReaders(locationID:filter:timeout:simulated:)``) and hands
    /// them to `delegate`, then calls `completion` (both on the main actor): nil when the
    /// discovery answered, the error otherwise (`canceled` after ``Cancelable/cancel()``).
    @discardableResult
    public func discoverReaders(
        _ configuration: InternetDiscoveryConfiguration, delegate: any DiscoveryDelegate,
        completion: @escaping @MainActor @Sendable (TerminalError?) -> Void = { _ in }
    ) -> Cancelable {
        let task = Task {
            do {
                let readers = try await discoverReaders(configuration)
                await delegate.terminal(self, didUpdateDiscoveredReaders: readers)
                return nil as TerminalError?
            } catch {
                return self.terminalError(error)
            }
        }
        let cancelable = Cancelable { [weak self] in
            task.cancel()
            try await self?.cancelDiscovery()
        }
        Task {
            let error = await task.value
            cancelable.complete()
            await completion(error)
        }
        return cancelable
    }

    /// The readers `configuration` names, online and offline, each tagged with this discovery
    /// (the async form of ``discoverReaders(_:delegate:completion:)``).
    ///
    /// The discovery is complete when it answers, as in Stripe's SDKs since iOS 4.0.0: discover
    /// again whenever the list may have changed. A new discovery supersedes the previous one:
    /// ``connectReader(_:connectionConfig:)`` refuses readers from an earlier one with
    /// `staleDiscovery`, and a discovery still waiting for its answer fails with `canceled`.
    /// With a filter, the answer holds that reader alone (or nothing); a malformed filter fails
    /// with `invalidRequiredParameter`.
    public func discoverReaders(_ configuration: InternetDiscoveryConfiguration) async throws -> [DiscoveredReader] {
        try await terminalCall {
            try await discoverReaders(
                locationID: configuration.locationID, filter: configuration.filter, timeout: configuration.timeout, simulated: configuration.simulated
            )
        }
    }

    /// Connects to a reader of the latest discovery as `connectionConfig` says and returns it
    /// (Stripe's `connectReader(_:connectionConfig:)`); ``latestConnection`` then holds the
    /// gateway's extras (generation, whether another lane was replaced).
    ///
    /// With `failIfInUse`, a reader mid-transaction for another lane is refused with
    /// `readerBusy` (ask the user, then retry with `false` to take it over); an idle reader
    /// is taken over either way and its previous lane hears `disconnected(.replaced)`.
    /// Other errors: `readerOffline`, `staleDiscovery` (pass a reader of the latest
    /// discovery), `readerNotFound`, `alreadyConnectedToReader`. A required software
    /// update installs before this returns (events `updateStarted`, `updateProgress`;
    /// ``cancelReaderSoftwareUpdate()`` stops it and the connect fails with `canceled`);
    /// a failed update the 30-day rule lets through connects with
    /// ``ReaderConnectionDetails/requiredUpdateFailure`` set.
    @discardableResult
    public func connectReader(_ reader: DiscoveredReader, connectionConfig: InternetConnectionConfiguration) async throws -> Reader {
        let response = try await terminalCall { try await connectReader(reader, failIfInUse: connectionConfig.failIfInUse) }
        connected(as: connectionConfig)
        return Reader(response.reader ?? reader.wire)
    }

    /// Discovers the one reader the configuration names and connects it, in one call (Stripe's
    /// `easyConnect`): the discovery becomes the session's latest, and the connect follows
    /// ``connectReader(_:connectionConfig:)``'s rules and errors. When no reader of the account
    /// at the location matches, it fails with `readerNotFound` and connects nothing.
    @discardableResult
    public func easyConnect(_ configuration: InternetEasyConnectConfiguration) async throws -> Reader {
        let connectionConfig = configuration.connectionConfiguration
        let response = try await terminalCall {
            try await easyConnect(locationID: configuration.locationID, filter: configuration.filter, failIfInUse: connectionConfig.failIfInUse)
        }
        guard let reader = response.connection?.reader else {
            throw terminalError(RPCError(code: .internal, reason: .internal, message: "the gateway answered EasyConnect without the reader; report this"))
        }
        connected(as: connectionConfig)
        return Reader(reader)
    }

    /// What the gateway answered this client's latest connect or easy connect, beyond the
    /// ``Reader`` (the gateway's own); nil before the first. Kept until the next connect.
    public var latestConnection: ReaderConnectionDetails? { feedSession { $0.latestConnection } }

    private func connected(as connectionConfig: InternetConnectionConfiguration) {
        feedSession {
            $0.customerCancelAllowed(connectionConfig.allowCustomerCancel)
            $0.readerDelegateSet(connectionConfig.delegate)
        }
    }

    /// Waits for the customer's card, then calls `completion` on the main actor with the
    /// payment (status `requiresConfirmation`, the card in `paymentMethod`) or the error
    /// (`canceled` after ``Cancelable/cancel()``, which cancels the collect on the reader).
    @discardableResult
    public func collectPaymentMethod(
        _ payment: PaymentIntentParameters,
        completion: @escaping @MainActor @Sendable (Result<PaymentIntent, TerminalError>) -> Void
    ) -> Cancelable {
        let task = Task { () -> Result<PaymentIntent, TerminalError> in
            do {
                return .success(try await collectPaymentMethod(payment))
            } catch {
                return .failure(self.terminalError(error))
            }
        }
        let cancelable = Cancelable { [weak self] in
            try await self?.cancelCollectPaymentMethod()
        }
        Task {
            let result = await task.value
            cancelable.complete()
            await completion(result)
        }
        return cancelable
    }

    /// Waits for the customer's card and returns the payment, status `requiresConfirmation`
    /// with the card in `paymentMethod` (the async form of ``collectPaymentMethod(_:completion:)``;
    /// cancel it with ``cancelCollectPaymentMethod()``).
    public func collectPaymentMethod(_ payment: PaymentIntentParameters) async throws -> PaymentIntent {
        PaymentIntent(collected: try await terminalCall { try await collectPaymentMethod(payment.message) })
    }

    /// Confirms a collected payment (Stripe's `confirmPaymentIntent`): the payment with its
    /// status (`succeeded`) and the amount received. A decline throws `declinedByStripeAPI`
    /// with the ``TerminalError/declineCode``.
    public func confirmPaymentIntent(_ payment: PaymentIntent) async throws -> PaymentIntent {
        var params = ReaderGatewayV1.ConfirmPaymentIntentParams()
        params.paymentIntentID = payment.id
        do {
            return PaymentIntent(confirmed: try await terminalCall { try await confirmPaymentIntent(params) }, paymentMethod: payment.paymentMethod)
        } catch {
            var error = error
            if error.code == .declinedByReader { error.code = .declinedByStripeAPI }  // declined at confirm: Terminal iOS's name
            throw error
        }
    }
}
