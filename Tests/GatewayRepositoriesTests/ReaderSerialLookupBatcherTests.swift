import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import GatewayTestKit
import Synchronization
import Testing

@Suite("Reader lookups by serial: batches")
struct ReaderSerialLookupBatcherTests {
    @Test("lookups queued behind a running one leave as one statement, each finding what the single lookup finds; a batch that fails is looked up one by one", arguments: [false, true])
    func lookupsArrivingTogether(batchFails: Bool) async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let readers = (0..<12).map { ReaderID("tmr_lookup_\($0)") }
            for reader in readers { try await fixtures.registerReader(reader) }
            let store = ReaderStore(client: client)
            let serials = readers.map { "SN-\($0.rawValue)" } + ["SN-nobody"]
            // The first lookup holds the only slot until every other one is queued behind it.
            let gate = Gate()
            let batches = Mutex<[[String]]>([])
            let singles = Atomic<Int>(0)
            let batcher = ReaderSerialLookupBatcher<ReaderRecord>(
                maximumBatch: 64, maximumInFlight: 1,
                one: { serial throws(StoreError) in
                    singles.add(1, ordering: .relaxed)
                    if serial == serials[0] { await gate.wait() }
                    return try await store.reader(serial: serial)
                },
                many: { wanted throws(StoreError) in
                    batches.withLock { $0.append(wanted.sorted()) }
                    if batchFails { throw StoreError(.connectionLost, "the batch's connection was lost (test)") }
                    return try await store.readers(serials: wanted)
                }
            )
            let first = Task { try await batcher.record(serial: serials[0]) }
            #expect(await eventually { gate.isWaiting })
            let rest = serials.dropFirst().map { serial in Task { (serial, try await batcher.record(serial: serial)) } }
            #expect(await eventually { batcher.waiting == rest.count }, "the other lookups queue behind the first")
            gate.open()
            #expect(try await first.value?.serial == serials[0])
            for task in rest {
                let (serial, found) = try await task.value
                #expect(found?.serial == (serial == "SN-nobody" ? nil : serial), "\(serial): \(String(describing: found?.serial))")
                if let found { #expect(found.id == String(serial.dropFirst(3))) }
            }
            #expect(batches.withLock { $0 } == [Array(serials.dropFirst()).sorted()], "one statement for the queued lookups")
            #expect(singles.load(ordering: .relaxed) == (batchFails ? serials.count : 1))
        }
    }
}
