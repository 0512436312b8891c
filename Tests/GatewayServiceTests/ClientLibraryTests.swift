import GatewayTestKit
import GatewayClient
import GatewayWire
import GatewayWireClients
import Testing

/// The Swift client library (TerminalClient, AdminClient) against the real
/// gateway: the recommended failIfInUse pattern and didDisconnect.
@Suite("client library against the gateway")
struct ClientLibraryTests {
    @Test func recommendedPatternWithTerminalClient() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let configuration = harness.clientConfiguration
        let connectionA = GatewayConnection(configuration)
        let connectionB = GatewayConnection(configuration)
        let laneA = try await store.openedLane(1, on: connectionA)
        let laneB = try await store.openedLane(2, on: connectionB)

        let readersA = try await laneA.discoverReaders(locationID: store.location)
        let target = try #require(readersA.first { $0.id == store.readerID })
        #expect(target.isOnline)
        _ = try await laneA.connectReader(target, failIfInUse: true)
        var params = ReaderGatewayV1.CollectPaymentMethodParams()
        params.paymentIntentID = "pi_1"
        params.amount = 500
        params.currency = "usd"
        let collect = Task { try await laneA.collectPaymentMethod(params) }
        #expect(await eventually { store.reader.isHoldingCollect })

        // Lane 2: failIfInUse true first → busy; the user agrees → false.
        let readersB = try await laneB.discoverReaders(locationID: store.location)
        let sameReader = try #require(readersB.first { $0.id == store.readerID })
        do {
            _ = try await laneB.connectReader(sameReader, failIfInUse: true)
            Issue.record("connecting to a reader mid-transaction with failIfInUse succeeded")
        } catch let error as RPCError {
            #expect(error.reason == .readerBusy)
        }
        let taken = try await laneB.connectReader(sameReader, failIfInUse: false)
        #expect(taken.replacedOtherSession)

        // Lane 1 hears didDisconnect with the lane that took the reader; its collect fails.
        var disconnect: DisconnectInfo?
        for await event in laneA.events {
            if case .disconnected(let info) = event {
                disconnect = info
                break
            }
        }
        #expect(disconnect?.reason == .replaced)
        #expect(disconnect?.takenByLaneLabel == "Lane 2")
        do {
            _ = try await collect.value
            Issue.record("the interrupted collect succeeded")
        } catch let error as RPCError {
            #expect(error.reason == .readerConnectedToAnotherSession)
        }

        let admin = AdminClient(connection: GatewayConnection(configuration), secretKey: harness.account.secretKey)
        let ownership = try await admin.listOwnership(locationID: store.location)
        #expect(ownership.first?.owner?.laneLabel == "Lane 2")
        connectionA.close()
        connectionB.close()
        await harness.stop()
    }

    @Test func terminalClientDiscoversAgainWithoutCancellingAndOlderReadersAreStale() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let configuration = harness.clientConfiguration
        let connection = GatewayConnection(configuration)
        let lane = try await store.openedLane(1, on: connection)
        let first = try #require(try await lane.discoverReaders(locationID: store.location).first)
        let second = try #require(try await lane.discoverReaders(locationID: store.location).first)
        #expect(first.discoveryID != second.discoveryID)
        do {
            _ = try await lane.connectReader(first, failIfInUse: true)
            Issue.record("a reader from a superseded discovery connected")
        } catch let error as RPCError {
            #expect(error.reason == .staleDiscovery)
        }
        // Cancelling after the answer changes nothing: the latest readers still connect.
        try await lane.cancelDiscovery()
        _ = try await lane.connectReader(second, failIfInUse: true)
        connection.close()
        await harness.stop()
    }
}
