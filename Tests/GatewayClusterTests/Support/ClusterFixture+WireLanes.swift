/// The raw lanes of a chaos run: `count` ``WireLane``s contending for readers of their own
/// (so the scene's lanes keep theirs), sharing one ``ContractLedger``.
struct WireLaneGroup: Sendable {
    var lanes: [WireLane]
    var readers: [ClusterReader]
    var readerIDs: [String]
    let ledger: ContractLedger

    func start() { for lane in lanes { lane.start() } }

    /// Stops every lane at once (each lets its call in flight end).
    func stop() async {
        await withTaskGroup(of: Void.self) { group in
            for lane in lanes { group.addTask { await lane.stop() } }
        }
    }

    var violations: [ContractViolation] { ledger.violations }

    /// What the lanes did, what was checked, and what disagreed.
    var summary: String {
        let stats = lanes.map(\.stats)
        let total = { (field: KeyPath<WireLane.Stats, Int>) in stats.reduce(0) { $0 + $1[keyPath: field] } }
        var lines = [
            "chaos: \(lanes.count) wire lanes on \(readerIDs.count) readers: \(total(\.calls)) calls, \(total(\.connections)) connections, \(total(\.resumes)) resumes, \(total(\.sessions)) sessions opened, \(total(\.cuts)) connections cut by the lanes themselves",
            ledger.summary,
        ]
        for stuck in stats.flatMap(\.stuck) { lines.append("chaos:   \(stuck)") }
        return lines.joined(separator: "\n")
    }
}

extension ClusterFixture {
    /// Attaches readers for `count` raw lanes (about one for every two lanes, at least two, so
    /// they take readers from each other) through the balancer and makes the lanes; none is
    /// started. Lane i's random choices come from `seed` and i.
    func wireLanes(_ count: Int, seed: UInt64) async throws -> WireLaneGroup {
        let ledger = ContractLedger()
        guard count > 0 else { return WireLaneGroup(lanes: [], readers: [], readerIDs: [], ledger: ledger) }
        let readers = try await attachReaders(max(2, count / 2 + 1), ports: [balancerPort], prefix: "WIRE")
        let ids = try readers.map { try $0.readerID.orThrow("reader \($0.serial) has no id") }
        let lanes = (0..<count).map { index in
            WireLane(label: "wire lane \(index + 1)", readers: ids, cluster: self, ledger: ledger, seed: seed &+ UInt64(index + 1) &* 0x9E37_79B9)
        }
        return WireLaneGroup(lanes: lanes, readers: readers, readerIDs: ids, ledger: ledger)
    }
}
