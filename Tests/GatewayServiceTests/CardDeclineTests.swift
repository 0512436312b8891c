import GatewayClient
import GatewayTestKit
import GatewayWire
import Testing

/// A declined card told apart from a reader fault, end to end: the reader's `CARD_DECLINED`
/// with its decline code reaches the lane's call as it is (FAILED_PRECONDITION, the code in
/// `Status.decline_code`), the action's event records it, `TerminalClient` throws
/// `.declinedByReader` with the code, and the reader is free for the next collect.
@Suite("card declines", .timeLimit(.minutes(3)))
struct CardDeclineTests {
    static func declined(_ code: String) -> ReaderGatewayV1.Status {
        var status = ReaderGatewayV1.Status(.cardDeclined, "the card was declined (\(code))")
        status.declineCode = code
        return status
    }

    @Test("at the wire: CARD_DECLINED, FAILED_PRECONDITION and the decline code, at collect and at confirm; a collect then succeeds and the reader is not busy")
    func declineAtTheWire() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)

        // The reader declines with insufficient_funds: the call's END_OF_CALL carries it all.
        let declined = try lane.startCollect()
        #expect(await eventually { store.reader.isHoldingCollect })
        store.reader.failCollect(Self.declined("insufficient_funds"))
        let status = await declined.ending()
        #expect(status.code == .failedPrecondition, "\(status)")
        #expect(status.reason == .cardDeclined, "\(status)")
        #expect(status.declineCode == "insufficient_funds", "\(status)")
        #expect(status.message == "the card was declined (insufficient_funds)")

        // A decline whose reader named no code: Stripe's generic_decline.
        let generic = try lane.startCollect()
        #expect(await eventually { store.reader.isHoldingCollect })
        store.reader.failCollect(ReaderGatewayV1.Status(.cardDeclined, ""))
        let genericStatus = await generic.ending()
        #expect(genericStatus.reason == .cardDeclined && genericStatus.declineCode == "generic_decline", "\(genericStatus)")
        #expect(genericStatus.message == "the card was declined")

        // A reader fault stays READER_ERROR (ABORTED), with no decline code even if the reader sent one.
        let fault = try lane.startCollect()
        #expect(await eventually { store.reader.isHoldingCollect })
        var removed = ReaderGatewayV1.Status(.readerError, "the card was removed")
        removed.declineCode = "generic_decline"
        store.reader.failCollect(removed)
        let faultStatus = await fault.ending()
        #expect(faultStatus.code == .aborted && faultStatus.reason == .readerError && faultStatus.declineCode.isEmpty, "\(faultStatus)")

        // The next collect reads a card.
        let collecting = Task { try await lane.collect() }
        #expect(await eventually { store.reader.isHoldingCollect })
        store.reader.finishCollect()
        #expect(try await collecting.value.paymentMethod?.last4 == "4242")

        // A decline at confirm (the issuer refused the payment) reaches the lane the same way.
        store.reader.failNextConfirm(Self.declined("do_not_honor"))
        var confirm = ReaderGatewayV1.ConfirmPaymentIntentRequest()
        confirm.sessionToken = lane.token
        var params = ReaderGatewayV1.ConfirmPaymentIntentParams()
        params.paymentIntentID = "pi_Lane 1"
        confirm.params = params
        let (confirmCall, confirmEvents) = try lane.channel.start(ReaderGatewayV1.Sdk.confirmPaymentIntent.path)
        try lane.channel.send(confirm, on: confirmCall)
        try lane.channel.halfClose(confirmCall)
        let confirmStatus = await StartedCall(events: confirmEvents).ending()
        #expect(confirmStatus.code == .failedPrecondition && confirmStatus.reason == .cardDeclined && confirmStatus.declineCode == "do_not_honor", "\(confirmStatus)")

        // The reader is not left mid-transaction: another lane's failIfInUse connect is not READER_BUSY.
        let other = try await store.lane("Lane 2")
        let connected = try await other.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        #expect(connected.reader?.id == store.readerID)

        // The action's event records the decline and its code.
        var actions = ReaderGatewayV1.ListEventsRequest()
        actions.types = ["reader.action.failed"]
        #expect(await eventually { (try? await FleetEventsTests.allEvents(store.admin, actions).count) == 4 })
        let failures = try await FleetEventsTests.allEvents(store.admin, actions).map(FleetEventsTests.object)
        let outcomes = Set(failures.map { "\($0["error_code"] as? String ?? "-") \($0["decline_code"] as? String ?? "-")" })
        #expect(outcomes == ["CARD_DECLINED insufficient_funds", "CARD_DECLINED generic_decline", "READER_ERROR -", "CARD_DECLINED do_not_honor"], "\(outcomes)")
        await harness.stop()
    }

    @Test("through TerminalClient: declinedByReader with the decline code; the next collect succeeds; declined at confirm, declinedByStripeAPI")
    func declineThroughTerminalClient() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let configuration = harness.clientConfiguration
        let connection = GatewayConnection(configuration)
        let lane = try await store.openedLane(1, on: connection)
        let readers = try await lane.discoverReaders(InternetDiscoveryConfiguration(locationID: store.location))
        let target = try #require(readers.first { $0.id == store.readerID })
        _ = try await lane.connectReader(target, connectionConfig: InternetConnectionConfiguration(failIfInUse: true, allowCustomerCancel: false))

        let (results, sink) = AsyncStream.makeStream(of: Result<PaymentIntent, TerminalError>.self)
        var pending = results.makeAsyncIterator()
        _ = lane.collectPaymentMethod(PaymentIntentParameters(id: "pi_1", amount: 1999, currency: "usd")) { sink.yield($0) }
        #expect(await eventually { store.reader.isHoldingCollect })
        store.reader.failCollect(Self.declined("expired_card"))
        guard case .failure(let error)? = await pending.next() else {
            Issue.record("the declined collect did not fail")
            return
        }
        #expect(error.code == .declinedByReader, "\(error)")
        #expect(error.declineCode == "expired_card")
        #expect(error.underlying.reason == .cardDeclined && error.underlying.code == .failedPrecondition)
        #expect(!error.isRetryable)
        #expect(error.description == "declinedByReader: the card was declined (expired_card) (decline code: expired_card) [ERROR_REASON_CARD_DECLINED]")

        _ = lane.collectPaymentMethod(PaymentIntentParameters(id: "pi_2", amount: 1999, currency: "usd")) { sink.yield($0) }
        #expect(await eventually { store.reader.isHoldingCollect })
        store.reader.finishCollect()
        guard case .success(let intent)? = await pending.next() else {
            Issue.record("the collect after the decline did not succeed")
            return
        }
        #expect(intent.id == "pi_2" && intent.paymentMethod?.last4 == "4242")

        // Declined at confirm: Terminal iOS's declinedByStripeAPI, with the code; a second confirm succeeds.
        store.reader.failNextConfirm(Self.declined("do_not_honor"))
        do {
            _ = try await lane.confirmPaymentIntent(intent)
            Issue.record("the declined confirm succeeded")
        } catch let error as TerminalError {
            #expect(error.code == .declinedByStripeAPI, "\(error)")
            #expect(error.declineCode == "do_not_honor")
            #expect(error.underlying.reason == .cardDeclined)
        }
        #expect(try await lane.confirmPaymentIntent(intent).status == .succeeded)

        try await lane.closeSession()
        connection.close()
        await harness.stop()
    }
}
