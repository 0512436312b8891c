import GatewayClient
import GatewayTestKit
import GatewayWire
import Testing

/// Stripe Terminal iOS's shapes against the real gateway: a `@MainActor` view model is the
/// discovery delegate as it is (no `nonisolated`) and hears the readers on the main actor;
/// `connectReader(_:connectionConfig:)` returns a `Reader`; collect returns a `Cancelable`
/// whose cancel ends it with `canceled`, and its completion gets a `PaymentIntent`; a
/// `@MainActor` reader delegate hears who took the reader.
@Suite("Terminal iOS shapes", .timeLimit(.minutes(3)))
struct TerminalShapesTests {
    /// What a point-of-sale screen's view model looks like: main-actor state, delegate methods.
    @MainActor
    final class CheckoutViewModel: DiscoveryDelegate {
        var readers: [DiscoveredReader] = []

        func terminal(_ terminal: TerminalClient, didUpdateDiscoveredReaders readers: [DiscoveredReader]) {
            // Main-actor state, set with no hop: the client calls this on the main actor.
            self.readers = readers
        }
    }

    /// A lane screen's model that hears its reader's disconnects on the main actor.
    @MainActor
    final class LaneModel: ReaderDelegate {
        let disconnects: AsyncStream<DisconnectInfo>.Continuation

        init(_ disconnects: AsyncStream<DisconnectInfo>.Continuation) {
            self.disconnects = disconnects
        }

        func reader(_ readerID: String, didDisconnect info: DisconnectInfo) {
            disconnects.yield(info)
        }
    }

    @Test func aMainActorReaderDelegateHearsWhoTookTheReader() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let configuration = harness.clientConfiguration
        let connection = GatewayConnection(configuration)
        let lane = try await store.openedLane(1, on: connection)
        let other = try await store.openedLane(2, on: connection)
        let (disconnects, sink) = AsyncStream.makeStream(of: DisconnectInfo.self)
        let model = await LaneModel(sink)
        let target = try #require(try await lane.discoverReaders(InternetDiscoveryConfiguration(locationID: store.location)).first { $0.id == store.readerID })
        try await lane.connectReader(target, connectionConfig: InternetConnectionConfiguration(failIfInUse: true, delegate: model))

        let taken = try #require(try await other.discoverReaders(locationID: store.location).first { $0.id == store.readerID })
        try await other.connectReader(taken, connectionConfig: InternetConnectionConfiguration(failIfInUse: false))
        var heard = disconnects.makeAsyncIterator()
        let info = await heard.next()
        #expect(info?.readerID == store.readerID && info?.reason == .replaced, "\(String(describing: info))")
        #expect(info?.takenByLaneLabel == "Lane 2" && info?.takenByPosDeviceID == "pos-2", "\(String(describing: info))")
        withExtendedLifetime(model) {}
        try await lane.closeSession()
        try await other.closeSession()
        connection.close()
        await harness.stop()
    }

    @Test func aMainActorViewModelDiscoversConnectsAndCollectsWithCancelables() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let configuration = harness.clientConfiguration
        let connection = GatewayConnection(configuration)
        let lane = try await store.openedLane(1, on: connection)

        let model = CheckoutViewModel()
        let discovery: TerminalError? = await withCheckedContinuation { done in
            lane.discoverReaders(InternetDiscoveryConfiguration(locationID: store.location), delegate: model) { error in
                done.resume(returning: error)
            }
        }
        #expect(discovery == nil)
        let readers = await model.readers
        let target = try #require(readers.first { $0.id == store.readerID })

        let reader = try await lane.connectReader(target, connectionConfig: InternetConnectionConfiguration(failIfInUse: true, allowCustomerCancel: true))
        #expect(reader.id == store.readerID && reader.isOnline)
        #expect(lane.connectedReader?.id == store.readerID)

        // Collect, then cancel it: the completion says canceled; the collect carried the
        // customer's right to cancel.
        let (results, sink) = AsyncStream.makeStream(of: Result<PaymentIntent, TerminalError>.self)
        var pending = results.makeAsyncIterator()
        let first = lane.collectPaymentMethod(PaymentIntentParameters(id: "pi_1", amount: 1999, currency: "usd")) { sink.yield($0) }
        #expect(await eventually { store.reader.isHoldingCollect })
        let collectCommand = store.reader.commands.last { if case .collectPaymentMethod? = $0.command { true } else { false } }
        guard case .collectPaymentMethod(let sent)? = collectCommand?.command else {
            Issue.record("the reader got no collect")
            return
        }
        #expect(sent.customerCancellationEnabled && sent.paymentIntentID == "pi_1" && sent.amount == 1999 && sent.currency == "usd")
        #expect(!first.completed)
        try await first.cancel()
        let canceled = await pending.next()
        guard case .failure(let error)? = canceled else {
            Issue.record("the canceled collect answered \(String(describing: canceled))")
            return
        }
        #expect(error.code == .canceled, "\(error)")
        #expect(first.completed)

        // Collect again: the card comes back as the payment's method.
        let second = lane.collectPaymentMethod(PaymentIntentParameters(id: "pi_2", amount: 1000, currency: "usd")) { sink.yield($0) }
        #expect(await eventually { store.reader.isHoldingCollect })
        store.reader.finishCollect()
        let collected = await pending.next()
        guard case .success(let intent)? = collected else {
            Issue.record("the collect answered \(String(describing: collected))")
            return
        }
        #expect(intent.id == "pi_2" && intent.status == .requiresConfirmation)
        #expect(intent.paymentMethod?.last4 == "4242" && intent.paymentMethod?.brand == "visa")
        #expect(second.completed)
        try await second.cancel()   // after completion: nothing happens
        #expect(store.reader.commands.filter { if case .cancelCollect? = $0.command { true } else { false } }.count == 1)

        // Confirm: the payment succeeded, with the amount received and the card kept.
        let confirmed = try await lane.confirmPaymentIntent(intent)
        #expect(confirmed.id == "pi_2" && confirmed.status == .succeeded && confirmed.amountReceived == 1000, "\(confirmed)")
        #expect(confirmed.paymentMethod?.last4 == "4242")

        // The async form collects the same way.
        let third = Task { try await lane.collectPaymentMethod(PaymentIntentParameters(id: "pi_3", amount: 500, currency: "eur")) }
        #expect(await eventually { store.reader.isHoldingCollect })
        store.reader.finishCollect()
        let collectedAgain = try await third.value
        #expect(collectedAgain.id == "pi_3" && collectedAgain.paymentMethod?.brand == "visa")

        try await lane.closeSession()
        connection.close()
        await harness.stop()
    }
}
