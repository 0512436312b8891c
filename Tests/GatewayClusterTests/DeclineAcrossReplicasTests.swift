import GatewayClient
import GatewayWire
import Testing

extension ClusterTests {
    /// A lane on one replica, its reader's link on another: the reader's decline is relayed
    /// between them (ReplicaLink.RelayCommand) and reaches the lane as the reader said it,
    /// CARD_DECLINED with its decline code; the next collect reads a card.
    @Test func aDeclineRelayedAcrossReplicasKeepsItsCode() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2) = (cluster.replicas[0], cluster.replicas[1])
            let reader = try await cluster.attachReaders(1, ports: [r1.port], prefix: "DECL", holdCollects: true)[0]
            let readerID = try #require(reader.readerID)
            let lane = try await cluster.lane("Lane", port: r2.port)
            try await lane.connect(readerID, location: cluster.location, failIfInUse: true)
            let inFlight = CallOutcome.collect(on: lane)
            try cluster.require(await eventuallyIgnoringErrors { reader.isHoldingCollect }, "the collect never reached the reader")
            reader.declineCollect(code: "insufficient_funds")
            try cluster.require(await eventuallyIgnoringErrors { inFlight.result != nil }, "the declined collect never ended")
            guard case .failure(let failure)? = inFlight.result else {
                Issue.record("the declined collect succeeded: \(String(describing: inFlight.result))")
                return
            }
            let error = (failure as? RPCError) ?? (failure as? TerminalError)?.underlying
            cluster.expect(error?.reason == .cardDeclined && error?.code == .failedPrecondition, "the decline arrived as \(failure)")
            cluster.expect(error?.declineCode == "insufficient_funds", "the decline code arrived as \(String(describing: error?.declineCode))")
            reader.setHoldCollects(false)
            let next = try await lane.collect()
            cluster.expect(next.paymentMethod?.last4 == "4242", "the collect after the decline returned \(next)")
            await lane.close()
        }
    }
}
