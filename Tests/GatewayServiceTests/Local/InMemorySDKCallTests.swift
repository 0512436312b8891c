import GatewayOperations
@testable import GatewayService
import GatewayTestKit
import GatewayTransport
import GatewayWire
import Testing

/// The SDK surface on its in-memory stores, served by the call layer (``CallServer``) over the
/// in-memory transport and called through a real ``ClientChannel``: the whole call path of a
/// lane (frames, routes, decoding, the handler, the status of its error) with no socket, no
/// TLS and no PostgreSQL.
@Suite("Local rules: the SDK called through a channel in memory")
struct InMemorySDKCallTests {
    /// `local`'s SDK routes served on a loop of its own, with a channel connected to them.
    struct Served {
        let group: EventLoopGroup
        let channel: ClientChannel
        let metrics = GatewayMetrics(callMethods: ["OpenSession", "Heartbeat", "DiscoverReaders", "ConnectReader"], includeProcessMetrics: false)

        init(_ local: LocalSDK) async throws {
            group = try EventLoopGroup(loopCount: 1, threadNamePrefix: "rg-sdk-mem")
            var router = MethodRouter()
            local.sdk.registerMethods(with: &router)
            let server = CallServer(router: router, metrics: GatewayCallMetrics(metrics: metrics))
            channel = try await InMemoryTransport(serving: server, on: group.next()).connect(peer: "lane-1")
        }

        func stop() async {
            channel.close()
            await group.shutdown()
        }
    }

    func openSession(_ local: LocalSDK, over channel: ClientChannel) async throws -> String {
        var request = ReaderGatewayV1.OpenSessionRequest()
        request.connectionToken = local.store.addConnectionToken(account: LocalSDK.account, location: nil)
        request.posDeviceID = "pos-1"
        return try await channel.unary(ReaderGatewayV1.Sdk.openSession, request, timeout: outcomeDeadline).sessionToken
    }

    @Test func aSessionOpenedThroughTheChannelIsHeldOnItsConnectionAndAnswersHeartbeats() async throws {
        let local = LocalSDK()
        let served = try await Served(local)
        let token = try await openSession(local, over: served.channel)
        var heartbeat = ReaderGatewayV1.HeartbeatRequest()
        heartbeat.sessionToken = token
        let answer = try await served.channel.unary(ReaderGatewayV1.Sdk.heartbeat, heartbeat, timeout: outcomeDeadline)
        #expect(answer.leaseRemainingMs == 30_000)
        let session = try #require(local.registry.session(token: token))
        #expect(session.connections.count == 1)
        #expect(served.metrics.calls.labels("Heartbeat", CallStatus.ok).value == 1)
        await served.stop()
    }

    @Test func aServiceErrorArrivesAtTheChannelAsItsStatus() async throws {
        let local = LocalSDK()
        let served = try await Served(local)
        var heartbeat = ReaderGatewayV1.HeartbeatRequest()
        heartbeat.sessionToken = "nobody"
        do {
            _ = try await served.channel.unary(ReaderGatewayV1.Sdk.heartbeat, heartbeat, timeout: outcomeDeadline)
            Issue.record("a heartbeat of an unknown session succeeded")
        } catch let error as RPCError {
            #expect(error.reason == .sessionExpired)
            #expect(error.code == ReaderGatewayV1.ErrorReason.sessionExpired.statusCode)
            #expect(error.message == ServiceError.sessionUnknown.message)
        }
        #expect(served.metrics.calls.labels("Heartbeat", CallStatus(rawValue: Int(ReaderGatewayV1.ErrorReason.sessionExpired.statusCode.rawValue)) ?? .unknown).value == 1)
        await served.stop()
    }

    @Test func aLaneDiscoversAndConnectsAReaderThroughTheChannel() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1", "tmr_2"])
        let served = try await Served(local)
        let token = try await openSession(local, over: served.channel)
        var discover = ReaderGatewayV1.DiscoverReadersRequest()
        discover.sessionToken = token
        discover.locationID = "tml_a"
        let found = try await served.channel.unary(ReaderGatewayV1.Sdk.discoverReaders, discover, timeout: outcomeDeadline)
        #expect(found.readers.map(\.id).sorted() == ["tmr_1", "tmr_2"])
        var connect = ReaderGatewayV1.ConnectReaderRequest()
        connect.sessionToken = token
        connect.readerID = "tmr_1"
        connect.discoveryID = found.discoveryID
        let connected = try await served.channel.unary(ReaderGatewayV1.Sdk.connectReader, connect, timeout: outcomeDeadline)
        #expect(connected.reader?.id == "tmr_1")
        #expect(local.store.ownership(of: "tmr_1")?.owner?.session == local.registry.session(token: token)?.id)
        await served.stop()
    }
}
