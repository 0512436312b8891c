@testable import GatewayRepositories
import Testing

@Suite("Statement batch queue")
struct StatementBatchQueueTests {
    struct Item: Sendable, Equatable, CustomStringConvertible {
        var name: String
        var key: String
        var description: String { name }
    }

    /// Five items queued while the only slot is held (``StatementBatchQueue/reserveAlone()``),
    /// then the batches sent once it is freed, in order.
    private static func batches(maximumBatch: Int, distinct: Bool) async -> [[String]] {
        var key: (@Sendable (Item) -> String)?
        if distinct { key = { item in item.key } }
        let queue = StatementBatchQueue<Item>(maximumBatch: maximumBatch, maximumInFlight: 1, distinctBy: key)
        let (sent, sink) = AsyncStream.makeStream(of: [String].self)
        let send: @Sendable ([Item]) async -> Void = { batch in sink.yield(batch.map(\.name)) }
        #expect(queue.reserveAlone())
        let items = [("a", "r1"), ("b", "r1"), ("c", "r2"), ("d", "r1"), ("e", "r3")].map { Item(name: $0.0, key: $0.1) }
        for item in items { queue.enqueue(item, send: send) }
        queue.releaseAlone(send: send)
        var batches: [[String]] = []
        for await batch in sent {
            batches.append(batch)
            if batches.joined().count == items.count { break }
        }
        return batches
    }

    @Test("without a key, items leave in arrival order, as many as a batch holds")
    func arrivalOrder() async {
        #expect(await Self.batches(maximumBatch: 8, distinct: false) == [["a", "b", "c", "d", "e"]])
        #expect(await Self.batches(maximumBatch: 2, distinct: false) == [["a", "b"], ["c", "d"], ["e"]])
    }

    @Test("with distinctBy a batch holds one item per key; a key's later items leave in later batches, in their order")
    func oneItemPerKey() async {
        #expect(await Self.batches(maximumBatch: 8, distinct: true) == [["a", "c", "e"], ["b"], ["d"]])
        #expect(await Self.batches(maximumBatch: 2, distinct: true) == [["a", "c"], ["b", "e"], ["d"]])
    }
}
