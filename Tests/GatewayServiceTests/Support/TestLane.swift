import GatewayTestKit
import Foundation
import GatewayTransport
import GatewayWire
import Synchronization

/// A point-of-sale lane: a session on a channel, with its event stream collected.
final class TestLane: Sendable {
    let channel: TestChannel
    let token: String
    let sessionID: String
    let label: String
    private let events = Mutex<[ReaderGatewayV1.SessionEvent]>([])
    /// Everything observed in order: events and command failures, for ordering checks.
    private let timeline = Mutex<[String]>([])
    private let eventStream = Mutex<UInt32?>(nil)

    /// Whether the first event of the stream arrived on the connection before
    /// the first call that ended with `reason` (both as the channel received them).
    func eventArrived(before reason: ReaderGatewayV1.ErrorReason) -> Bool {
        let events = eventStream.withLock { $0 }
        let arrivals = channel.arrivals
        guard let eventIndex = arrivals.firstIndex(where: { $0.stream == events && $0.endReason == nil }),
              let failureIndex = arrivals.firstIndex(where: { $0.endReason == reason })
        else { return false }
        return eventIndex < failureIndex
    }
    typealias Sdk = ReaderGatewayV1.Sdk

    private init(channel: TestChannel, token: String, sessionID: String, label: String) {
        self.channel = channel
        self.token = token
        self.sessionID = sessionID
        self.label = label
    }

    static func open(
        _ harness: GatewayHarness,
        connectionToken: String,
        label: String,
        channel: TestChannel? = nil,
        subscribe: Bool = true
    ) async throws -> TestLane {
        let channel = if let channel { channel } else { try await harness.channel() }
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = connectionToken
        request.posDeviceID = "pos-\(label)"
        request.laneLabel = label
        let response = try await channel.unary(Sdk.openSession, request)
        let lane = TestLane(channel: channel, token: response.sessionToken, sessionID: response.sessionID, label: label)
        if subscribe { try await lane.subscribe() }
        return lane
    }

    /// Opens a session on a new connection to a gateway at `port` (process tests).
    static func open(port: Int, caPath: String, loop: EventLoop, connectionToken: String, label: String) async throws -> TestLane {
        let channel = try await TestChannel.connect(port: port, caPath: caPath, loop: loop)
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = connectionToken
        request.posDeviceID = "pos-\(label)"
        request.laneLabel = label
        let response = try await channel.unary(Sdk.openSession, request)
        let lane = TestLane(channel: channel, token: response.sessionToken, sessionID: response.sessionID, label: label)
        try await lane.subscribe()
        return lane
    }

    /// Subscribes to the session's events (collected in order).
    func subscribe() async throws {
        var request = ReaderGatewayV1.SubscribeEventsRequest()
        request.sessionToken = token
        let (id, stream) = try channel.start(Sdk.subscribeEvents.path)
        eventStream.withLock { $0 = id }
        try channel.send(request, on: id)
        try channel.halfClose(id)
        Task {
            for await event in stream {
                if case .message(let bytes) = event, let message = try? ReaderGatewayV1.SessionEvent(serializedBytes: bytes) {
                    events.withLock { $0.append(message) }
                    timeline.withLock { $0.append("event") }
                }
            }
        }
    }

    var receivedEvents: [ReaderGatewayV1.SessionEvent] { events.withLock { $0 } }
    var observed: [String] { timeline.withLock { $0 } }

    /// The first disconnect event, waiting for it.
    func waitForDisconnect(timeout: Duration = outcomeDeadline) async -> ReaderGatewayV1.ReaderDisconnected? {
        _ = await eventually(timeout: timeout) { disconnects.count > 0 }
        return disconnects.first
    }

    var disconnects: [ReaderGatewayV1.ReaderDisconnected] {
        receivedEvents.compactMap { if case .disconnected(let event)? = $0.event { event } else { nil } }
    }

    func discover(location: String = "") async throws -> ReaderGatewayV1.DiscoverReadersResponse {
        var request = ReaderGatewayV1.DiscoverReadersRequest()
        request.sessionToken = token
        request.locationID = location
        return try await channel.unary(Sdk.discoverReaders, request)
    }

    func cancelDiscovery() async throws {
        var request = ReaderGatewayV1.CancelDiscoveryRequest()
        request.sessionToken = token
        _ = try await channel.unary(Sdk.cancelDiscovery, request)
    }

    @discardableResult
    func connect(_ reader: String, discovery: String, failIfInUse: Bool) async throws -> ReaderGatewayV1.ConnectReaderResponse {
        var request = ReaderGatewayV1.ConnectReaderRequest()
        request.sessionToken = token
        request.readerID = reader
        request.discoveryID = discovery
        request.failIfInUse = failIfInUse
        return try await channel.unary(Sdk.connectReader, request)
    }

    /// Discovers at `location` and connects to `reader`.
    @discardableResult
    func discoverAndConnect(_ reader: String, location: String, failIfInUse: Bool) async throws -> ReaderGatewayV1.ConnectReaderResponse {
        let discovery = try await discover(location: location)
        return try await connect(reader, discovery: discovery.discoveryID, failIfInUse: failIfInUse)
    }

    func disconnect() async throws {
        var request = ReaderGatewayV1.DisconnectReaderRequest()
        request.sessionToken = token
        _ = try await channel.unary(Sdk.disconnectReader, request)
    }

    func collect() async throws -> ReaderGatewayV1.CollectPaymentMethodResponse {
        try await channel.unary(Sdk.collectPaymentMethod, collectRequest())
    }

    /// The lane's collect: 10.00 USD for `pi_<label>`.
    private func collectRequest() -> ReaderGatewayV1.CollectPaymentMethodRequest {
        var request = ReaderGatewayV1.CollectPaymentMethodRequest()
        request.sessionToken = token
        var params = ReaderGatewayV1.CollectPaymentMethodParams()
        params.paymentIntentID = "pi_\(label)"
        params.amount = 1000
        params.currency = "usd"
        request.params = params
        return request
    }

    /// A collect whose frames (start, message, half-close) are on the wire when this returns:
    /// a call started after it reaches the gateway after it.
    func startCollect() throws -> StartedCall {
        let (id, events) = try channel.start(Sdk.collectPaymentMethod.path)
        try channel.send(collectRequest(), on: id)
        try channel.halfClose(id)
        return StartedCall(events: events)
    }

    func cancelCollect() async throws {
        var request = ReaderGatewayV1.CancelCollectPaymentMethodRequest()
        request.sessionToken = token
        _ = try await channel.unary(Sdk.cancelCollectPaymentMethod, request)
    }

    /// Shows a cart; records a failure in the timeline before rethrowing it.
    func setDisplay() async throws {
        var request = ReaderGatewayV1.SetReaderDisplayRequest()
        request.sessionToken = token
        var cart = ReaderGatewayV1.Cart()
        cart.currency = "usd"
        cart.total = 1000
        request.cart = cart
        do {
            _ = try await channel.unary(Sdk.setReaderDisplay, request)
            timeline.withLock { $0.append("display ok") }
        } catch {
            timeline.withLock { $0.append("display failed") }
            throw error
        }
    }

    func heartbeat() async throws {
        var request = ReaderGatewayV1.HeartbeatRequest()
        request.sessionToken = token
        _ = try await channel.unary(Sdk.heartbeat, request)
    }
}

/// A call already written to the wire; its ending is read later.
struct StartedCall: Sendable {
    let events: AsyncStream<CallEvent>

    /// The call's final status (CONNECTION_LOST when the connection closed first).
    func ending() async -> ReaderGatewayV1.Status {
        for await event in events {
            if case .ended(let status) = event { return status }
        }
        return ReaderGatewayV1.Status(.connectionLost, "the connection closed")
    }
}
