import Testing

/// The rules the chaos run's raw lanes judge answers by, without a cluster: each one accepts
/// an answer that matches some state PostgreSQL passed through between the two reads around
/// the call, and only then.
@Suite("wire contract rules")
struct WireContractRulesTests {
    static let session = "sess_lane"

    static func snapshot(_ owners: [String: (String?, Int64)], alive: Bool = true, discovery: Int64? = 3, discovered: Set<String> = ["r1", "r2"]) -> ContractSnapshot {
        ContractSnapshot(
            session: .init(node: "r1-abc", alive: alive, discoveryAnswered: discovery, discovered: discovered),
            readers: owners.mapValues { ContractSnapshot.Owner(session: $0.0, generation: $0.1) }
        )
    }

    static func change(_ reader: String, _ generation: Int64, from: String?, to: String?) -> HistoryRow {
        HistoryRow(id: generation, reader: reader, from: from, to: to, toLane: nil, generation: generation, reason: to == nil ? "released" : "replaced")
    }

    static func window(_ before: ContractSnapshot, _ after: ContractSnapshot, _ history: [HistoryRow] = []) -> ContractWindow {
        ContractWindow(session: session, before: before, after: after, history: history)
    }

    @Test func aResumeAnswerMustMatchAStateInTheWindow() {
        let held = Self.window(Self.snapshot(["r1": (Self.session, 4)]), Self.snapshot(["r1": (Self.session, 4)]))
        #expect(ContractRules.resume(resumed: true, connectedReader: "r1", held) == nil)
        #expect(ContractRules.resume(resumed: true, connectedReader: nil, held) != nil, "told it holds nothing while it held r1 all along")
        #expect(ContractRules.resume(resumed: true, connectedReader: "r2", held) != nil, "named a reader it never held")
        #expect(ContractRules.resume(resumed: false, connectedReader: nil, held) != nil, "not resumed while the row was alive")

        // Taken over during the call: either answer matches a state the database passed through.
        let taken = Self.window(
            Self.snapshot(["r1": (Self.session, 4)]), Self.snapshot(["r1": ("sess_other", 5)]),
            [Self.change("r1", 5, from: Self.session, to: "sess_other")]
        )
        #expect(ContractRules.resume(resumed: true, connectedReader: "r1", taken) == nil)
        #expect(ContractRules.resume(resumed: true, connectedReader: nil, taken) == nil)

        // Taken and given back in between: a moment without the reader, and moments with it.
        let bounced = Self.window(
            Self.snapshot(["r1": (Self.session, 4)]), Self.snapshot(["r1": (Self.session, 6)]),
            [Self.change("r1", 5, from: Self.session, to: "sess_other"), Self.change("r1", 6, from: "sess_other", to: Self.session)]
        )
        #expect(ContractRules.resume(resumed: true, connectedReader: nil, bounced) == nil)
        #expect(bounced.generationsOwned("r1") == [4, 6])
    }

    @Test func aGainInTheHistoryCountsAsOwnedEvenWhenLostAgainBeforeTheSecondRead() {
        let window = Self.window(
            Self.snapshot(["r2": ("sess_other", 7)]), Self.snapshot(["r2": ("sess_third", 9)]),
            [Self.change("r2", 8, from: "sess_other", to: Self.session), Self.change("r2", 9, from: Self.session, to: "sess_third")]
        )
        #expect(ContractRules.resume(resumed: true, connectedReader: "r2", window) == nil)
        #expect(ContractRules.connectGranted("r2", generation: 8, window) == nil)
        #expect(ContractRules.connectGranted("r2", generation: 9, window) != nil)
        #expect(ContractRules.alreadyConnected(requested: "r1", named: "r2", window) == nil)
        #expect(ContractRules.alreadyConnected(requested: "r1", named: "r1", window) != nil)
        // A change beyond the second read's generation is not part of the window.
        let later = Self.window(
            Self.snapshot(["r2": ("sess_other", 7)]), Self.snapshot(["r2": ("sess_other", 7)]),
            [Self.change("r2", 8, from: "sess_other", to: Self.session)]
        )
        #expect(later.generationsOwned("r2").isEmpty)
    }

    @Test func aLostReaderRefusalNeedsAMomentWithoutTheReader() {
        let held = Self.window(Self.snapshot(["r1": (Self.session, 4)]), Self.snapshot(["r1": (Self.session, 4)]))
        #expect(ContractRules.lostReader("r1", held) != nil)
        let taken = Self.window(
            Self.snapshot(["r1": (Self.session, 4)]), Self.snapshot(["r1": ("sess_other", 5)]),
            [Self.change("r1", 5, from: Self.session, to: "sess_other")]
        )
        #expect(ContractRules.lostReader("r1", taken) == nil)
        #expect(ContractRules.commandAccepted("r1", taken) == nil)
        let never = Self.window(Self.snapshot(["r1": ("sess_other", 5)]), Self.snapshot(["r1": ("sess_other", 5)]))
        #expect(ContractRules.commandAccepted("r1", never) != nil)
    }

    @Test func discoveryRefusalsFollowTheRow() {
        let steady = Self.window(Self.snapshot([:], discovery: 3), Self.snapshot([:], discovery: 3))
        #expect(ContractRules.staleDiscovery(3, reader: "r1", steady) != nil, "disc_3 with r1 was the latest all along")
        #expect(ContractRules.staleDiscovery(3, reader: "r9", steady) == nil, "r9 was not in its answer")
        #expect(ContractRules.staleDiscovery(2, reader: "r1", steady) == nil, "disc_2 was superseded")
        let moved = Self.window(Self.snapshot([:], discovery: 3), Self.snapshot([:], discovery: 4))
        #expect(ContractRules.staleDiscovery(3, reader: "r1", moved) == nil)
        #expect(ContractRules.unknownDiscovery(3, steady) != nil)
        #expect(ContractRules.discoveryRecorded(3, steady) == nil)
        #expect(ContractRules.discoveryRecorded(2, steady) != nil, "answered a number below the one recorded")
    }

    @Test func aResumeRefusalNeedsTheRowToHaveEnded() {
        let alive = Self.window(Self.snapshot([:]), Self.snapshot([:]))
        #expect(ContractRules.resumeRefused(alive) != nil)
        let expired = Self.window(Self.snapshot([:]), Self.snapshot([:], alive: false))
        #expect(ContractRules.resumeRefused(expired) == nil)
    }

    @Test func eventsOlderThanAResumeAnswerAreStale() {
        #expect(ContractRules.eventAfterResume(generation: 5, floor: 6) != nil)
        #expect(ContractRules.eventAfterResume(generation: 6, floor: 6) == nil)
        #expect(ContractRules.eventAfterResume(generation: 0, floor: 6) == nil)
        #expect(WireLaneDriver.namedReader("this session is already connected to reader tmr_AB12; disconnect it first") == "tmr_AB12")
        #expect(WireLaneDriver.namedReader("something else") == nil)
    }
}
