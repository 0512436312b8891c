import GatewayTestKit
import GatewayWire
import Testing

/// A cancel sent after a collect on the same connection cancels that collect, wherever the
/// collect is on its way to the reader: still in the gateway (marking the reader in use in
/// PostgreSQL), handed to the link, or held by the reader. Checked at the wire: the collect's
/// CALL_START, message and half-close are written before the cancel's first frame.
@Suite("cancelCollectPaymentMethod after a collect")
struct CollectCancelOrderTests {
    static let rounds = 40

    @Test func aCancelSentRightAfterACollectCancelsIt() async throws {
        let harness = try await GatewayHarness.start(commandTimeout: .seconds(5))
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)

        var outcomes: [ReaderGatewayV1.ErrorReason] = []
        for _ in 0..<Self.rounds {
            let collect = try lane.startCollect()
            try await lane.cancelCollect()
            outcomes.append(await collect.ending().reason)
        }
        #expect(outcomes == Array(repeating: .commandCanceled, count: Self.rounds), "\(outcomes)")
        // Nothing is left running: the reader holds no collect, PostgreSQL shows it idle,
        // and a collect after the cancels is not cancelled by any of them.
        #expect(await eventually { !store.reader.isHoldingCollect })
        let last = Task { try await lane.collect() }
        #expect(await eventually { store.reader.isHoldingCollect })
        store.reader.finishCollect()
        #expect(try await last.value.paymentMethod?.brand == "visa")
        #expect(try await store.admin.ownership(of: store.readerID).inTransaction == false)
        await harness.stop()
    }

    @Test func aCancelWithNoCollectIsNoErrorAndCancelsNothingLater() async throws {
        let harness = try await GatewayHarness.start(commandTimeout: .seconds(5))
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        try await lane.cancelCollect()
        let collect = Task { try await lane.collect() }
        #expect(await eventually { store.reader.isHoldingCollect })
        store.reader.finishCollect()
        #expect(try await collect.value.paymentMethod?.brand == "visa")
        await harness.stop()
    }
}
