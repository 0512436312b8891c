import GatewayTestKit
import GatewayOperations
import GatewayWire
import Testing

/// The seed's failIfInUse table, cell by cell, with two lanes and one reader,
/// over real TLS against a real PostgreSQL.
@Suite("connectReader and failIfInUse")
struct FailIfInUseTests {
    @Test(arguments: [false, true])
    func idleReaderIsTakenOverWhateverFailIfInUse(failIfInUse: Bool) async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let laneA = try await store.lane("Lane 1")
        let laneB = try await store.lane("Lane 2")
        let first = try await laneA.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        #expect(first.replacedOtherSession == false)
        try await laneA.setDisplay()

        let second = try await laneB.discoverAndConnect(store.readerID, location: store.location, failIfInUse: failIfInUse)
        #expect(second.replacedOtherSession)
        #expect(second.generation == first.generation + 1)

        // Lane 1 does not wait for its event: its next command fails, and the
        // event arrived on its connection before the failure did.
        await expectFailure(.readerConnectedToAnotherSession) { try await laneA.setDisplay() }
        #expect(laneA.eventArrived(before: .readerConnectedToAnotherSession))
        let event = try #require(await laneA.waitForDisconnect())
        #expect(event.reason == .replaced)
        #expect(event.takenByLaneLabel == "Lane 2")
        #expect(event.takenByPosDeviceID == "pos-Lane 2")
        // Afterwards Lane 1 simply has no reader.
        await expectFailure(.notConnectedToReader) { try await laneA.setDisplay() }
        try await laneB.setDisplay()

        let ownership = try await store.admin.ownership(of: store.readerID)
        #expect(ownership.owner?.laneLabel == "Lane 2")
        #expect(ownership.owner?.sessionID == laneB.sessionID)
        #expect(ownership.generation == second.generation)
        await harness.stop()
    }

    @Test func midTransactionReaderIsTakenOverWithFailIfInUseFalse() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let laneA = try await store.lane("Lane 1")
        let laneB = try await store.lane("Lane 2")
        try await laneA.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        let collect = Task { try await laneA.collect() }
        #expect(await eventually { store.reader.isHoldingCollect })
        #expect(try await store.admin.ownership(of: store.readerID).inTransaction)

        let taken = try await laneB.discoverAndConnect(store.readerID, location: store.location, failIfInUse: false)
        #expect(taken.replacedOtherSession)
        // The interrupted collect fails with the shared reason, after the event.
        await expectFailure(.readerConnectedToAnotherSession) { try await collect.value }
        #expect(laneA.eventArrived(before: .readerConnectedToAnotherSession))
        #expect(await laneA.waitForDisconnect()?.takenByLaneLabel == "Lane 2")
        // The reader was told to cancel the collect, and is no longer in use.
        #expect(await eventually { store.reader.commands.contains { if case .cancelCollect? = $0.command { true } else { false } } })
        let ownership = try await store.admin.ownership(of: store.readerID)
        #expect(ownership.inTransaction == false)
        #expect(ownership.owner?.laneLabel == "Lane 2")
        await harness.stop()
    }

    @Test func midTransactionReaderRefusesFailIfInUseTrueAndTheCollectContinues() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let laneA = try await store.lane("Lane 1")
        let laneB = try await store.lane("Lane 2")
        let first = try await laneA.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        let collect = Task { try await laneA.collect() }
        #expect(await eventually { store.reader.isHoldingCollect })

        // The owner sees the reader's status change (heartbeat: collecting).
        #expect(await eventually {
            laneA.receivedEvents.contains { event in
                if case .readerStatusChanged(let change)? = event.event { change.reader?.activity == .collecting } else { false }
            }
        })
        await expectFailure(.readerBusy) {
            try await laneB.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        }
        // The command in progress continues and completes for Lane 1.
        store.reader.finishCollect()
        let collected = try await collect.value
        #expect(collected.paymentMethod?.last4 == "4242")
        #expect(laneA.disconnects.isEmpty)
        let ownership = try await store.admin.ownership(of: store.readerID)
        #expect(ownership.owner?.laneLabel == "Lane 1")
        #expect(ownership.generation == first.generation)
        let history = try await store.admin.history(of: store.readerID)
        #expect(history.first?.reason == .refusedBusy)
        #expect(history.first?.session?.laneLabel == "Lane 2")
        await harness.stop()
    }

    /// The recommended pattern: failIfInUse true first; on READER_BUSY ask the
    /// user, then retry with false.
    @Test func recommendedRetryPattern() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let laneA = try await store.lane("Lane 1")
        let laneB = try await store.lane("Lane 2")
        try await laneA.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        let collect = Task { try await laneA.collect() }
        #expect(await eventually { store.reader.isHoldingCollect })

        let discovery = try await laneB.discover(location: store.location)
        await expectFailure(.readerBusy) { try await laneB.connect(store.readerID, discovery: discovery.discoveryID, failIfInUse: true) }
        // The user confirmed: same discovery, failIfInUse false.
        let taken = try await laneB.connect(store.readerID, discovery: discovery.discoveryID, failIfInUse: false)
        #expect(taken.replacedOtherSession)
        await expectFailure(.readerConnectedToAnotherSession) { try await collect.value }
        let history = try await store.admin.history(of: store.readerID)
        #expect(history.prefix(3).map(\.reason) == [.replaced, .refusedBusy, .connected])
        #expect(harness.metrics.claims.labels(ClaimOutcome.refusedBusy).value == 1)
        await harness.stop()
    }
}
