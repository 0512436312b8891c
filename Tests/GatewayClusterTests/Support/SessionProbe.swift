import GatewayClient
import GatewayTransport
import GatewayWire
import Synchronization

/// A lane's session driven one call at a time over one connection to one replica, with no
/// recovery of any kind: no retry, no resume behind the test's back, no reconnect. What the
/// replica answers is what a client written from `proto/` alone sees (the client library
/// recovers from a wrong answer on its own, and would hide it).
final class SessionProbe: Sendable {
    let channel: ClientChannel
    let replica: String
    private let received = Mutex<(events: [ReaderGatewayV1.SessionEvent], ended: (any Error)?)>(([], nil))
    private let pump = Mutex<Task<Void, Never>?>(nil)

    private init(channel: ClientChannel, replica: String) {
        self.channel = channel
        self.replica = replica
    }

    /// A new connection to `replica`'s public port.
    static func connect(to replica: Replica, cluster: ClusterFixture) async throws -> SessionProbe {
        SessionProbe(channel: try await ClientChannel.connect(cluster.channelConfiguration(port: replica.port), group: cluster.group), replica: replica.name)
    }

    func open(token: String, lane: String) async throws -> ReaderGatewayV1.OpenSessionResponse {
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = token
        request.posDeviceID = "pos-\(lane)"
        request.laneLabel = lane
        return try await channel.unary(ReaderGatewayV1.Sdk.openSession, request, timeout: .seconds(10))
    }

    func resume(_ sessionToken: String) async throws -> ReaderGatewayV1.OpenSessionResponse {
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.resumeToken = sessionToken
        return try await channel.unary(ReaderGatewayV1.Sdk.openSession, request, timeout: .seconds(10))
    }

    func discover(_ sessionToken: String, location: String) async throws -> ReaderGatewayV1.DiscoverReadersResponse {
        var request = ReaderGatewayV1.DiscoverReadersRequest()
        request.sessionToken = sessionToken
        request.locationID = location
        return try await channel.unary(ReaderGatewayV1.Sdk.discoverReaders, request, timeout: .seconds(10))
    }

    /// A DiscoverReaders narrowed to the reader id or serial given (both may be sent, to see
    /// the refusal).
    func discover(_ sessionToken: String, location: String, readerID: String = "", serial: String = "") async throws -> ReaderGatewayV1.DiscoverReadersResponse {
        var request = ReaderGatewayV1.DiscoverReadersRequest()
        request.sessionToken = sessionToken
        request.locationID = location
        var filter = ReaderGatewayV1.DiscoveryFilter()
        filter.readerID = readerID
        filter.serialNumber = serial
        request.filter = filter
        return try await channel.unary(ReaderGatewayV1.Sdk.discoverReaders, request, timeout: .seconds(10))
    }

    /// EasyConnect of the reader id or serial given at `location`.
    @discardableResult
    func easyConnect(
        _ sessionToken: String, location: String, readerID: String = "", serial: String = "", failIfInUse: Bool = false, lane: String = ""
    ) async throws -> ReaderGatewayV1.EasyConnectResponse {
        var request = ReaderGatewayV1.EasyConnectRequest()
        request.sessionToken = sessionToken
        request.locationID = location
        var filter = ReaderGatewayV1.DiscoveryFilter()
        filter.readerID = readerID
        filter.serialNumber = serial
        request.filter = filter
        request.failIfInUse = failIfInUse
        request.laneLabel = lane
        return try await channel.unary(ReaderGatewayV1.Sdk.easyConnect, request, timeout: .seconds(10))
    }

    @discardableResult
    func connect(_ sessionToken: String, reader: String, discovery: String, failIfInUse: Bool = false) async throws -> ReaderGatewayV1.ConnectReaderResponse {
        var request = ReaderGatewayV1.ConnectReaderRequest()
        request.sessionToken = sessionToken
        request.readerID = reader
        request.discoveryID = discovery
        request.failIfInUse = failIfInUse
        return try await channel.unary(ReaderGatewayV1.Sdk.connectReader, request, timeout: .seconds(10))
    }

    func disconnect(_ sessionToken: String) async throws {
        var request = ReaderGatewayV1.DisconnectReaderRequest()
        request.sessionToken = sessionToken
        _ = try await channel.unary(ReaderGatewayV1.Sdk.disconnectReader, request, timeout: .seconds(10))
    }

    func display(_ sessionToken: String) async throws {
        var request = ReaderGatewayV1.SetReaderDisplayRequest()
        request.sessionToken = sessionToken
        var cart = ReaderGatewayV1.Cart()
        cart.currency = "usd"
        cart.total = 100
        request.cart = cart
        _ = try await channel.unary(ReaderGatewayV1.Sdk.setReaderDisplay, request, timeout: .seconds(10))
    }

    /// Subscribes to the session's events on this connection; they are recorded in order.
    func subscribe(_ sessionToken: String) {
        var request = ReaderGatewayV1.SubscribeEventsRequest()
        request.sessionToken = sessionToken
        let stream = channel.serverStreaming(ReaderGatewayV1.Sdk.subscribeEvents, request)
        let task = Task { [self] in
            do {
                for try await event in stream { received.withLock { $0.events.append(event) } }
            } catch {
                received.withLock { $0.ended = error }
            }
        }
        pump.withLock { $0 = task }
    }

    var events: [ReaderGatewayV1.SessionEvent] { received.withLock { $0.events } }

    /// The `disconnected` events received so far.
    var disconnects: [ReaderGatewayV1.ReaderDisconnected] {
        events.compactMap { if case .disconnected(let lost)? = $0.event { lost } else { nil } }
    }

    /// How the event stream ended, if it did.
    var streamEnding: (any Error)? { received.withLock { $0.ended } }

    func close() {
        pump.withLock { $0 }?.cancel()
        channel.close()
    }
}
