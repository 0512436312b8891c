@testable import GatewayService
import GatewayWire
import Testing

/// ``FleetWatchBook`` without I/O: snapshot pages, changes only when something differs, a
/// watcher's account and location, removals in scope.
@Suite("FleetWatchBook")
struct FleetWatchBookTests {
    static func fleet(_ id: String, location: String = "tml_a", holder: String? = nil) -> ReaderGatewayV1.FleetReader {
        var reader = ReaderGatewayV1.Reader()
        reader.id = id
        reader.locationID = location
        var fleet = ReaderGatewayV1.FleetReader()
        fleet.reader = reader
        if let holder {
            var owner = ReaderGatewayV1.ReaderOwner()
            owner.laneLabel = holder
            fleet.holder = owner
        }
        return fleet
    }

    @Test func theSnapshotComesInPagesTheLastOneComplete() {
        var book = FleetWatchBook()
        let readers = (0..<450).map { Self.fleet("tmr_\($0)") }
        let pages = book.add(1, account: "acct", location: nil, readers: readers, locations: [ReaderGatewayV1.Location()], nowUnixMs: 5)
        let snapshots = pages.compactMap { if case .snapshot(let page) = $0.event { page } else { nil } }
        #expect(snapshots.map(\.readers.count) == [200, 200, 50])
        #expect(snapshots.map(\.complete) == [false, false, true])
        #expect(snapshots.map(\.locations.count) == [1, 0, 0])
        let empty = book.add(2, account: "acct", location: nil, readers: [], locations: [], nowUnixMs: 5)
        #expect(empty.count == 1)
        if case .snapshot(let page) = empty.first?.event { #expect(page.complete && page.readers.isEmpty) } else { Issue.record("no snapshot page") }
    }

    @Test func aRefreshSendsOnlyWhatChangedToTheWatchersItConcerns() {
        var book = FleetWatchBook()
        _ = book.add(1, account: "a", location: nil, readers: [Self.fleet("r1"), Self.fleet("r2")], locations: [], nowUnixMs: 0)
        _ = book.add(2, account: "a", location: "tml_b", readers: [], locations: [], nowUnixMs: 0)
        _ = book.add(3, account: "other", location: nil, readers: [], locations: [], nowUnixMs: 0)
        // r1 unchanged, r2 taken by Lane A: only watcher 1 hears, only of r2.
        var sends = book.refreshed([.init(account: "a", reader: Self.fleet("r1")), .init(account: "a", reader: Self.fleet("r2", holder: "Lane A"))], scope: .readers(["r1", "r2"]), nowUnixMs: 1)
        #expect(sends.map(\.watcher) == [1])
        #expect(sends.first?.events.count == 1)
        if case .readerChanged(let fleet) = sends.first?.events.first?.event { #expect(fleet.holder?.laneLabel == "Lane A") } else { Issue.record("no change") }
        // The same rows again: nothing to say.
        sends = book.refreshed([.init(account: "a", reader: Self.fleet("r2", holder: "Lane A"))], scope: .readers(["r2"]), nowUnixMs: 2)
        #expect(sends.isEmpty)
        // A new reader at tml_b: watcher 1 (all locations) and 2 (tml_b) hear it, the other account does not.
        sends = book.refreshed([.init(account: "a", reader: Self.fleet("r3", location: "tml_b"))], scope: .readers(["r3"]), nowUnixMs: 3)
        #expect(sends.map(\.watcher) == [1, 2])
    }

    @Test func aReaderInScopeWithoutARowIsRemoved() {
        var book = FleetWatchBook()
        _ = book.add(1, account: "a", location: nil, readers: [Self.fleet("r1"), Self.fleet("r2")], locations: [], nowUnixMs: 0)
        _ = book.add(2, account: "b", location: nil, readers: [Self.fleet("rb")], locations: [], nowUnixMs: 0)
        // r1 asked for and absent: removed; r2 not asked for: kept.
        var sends = book.refreshed([], scope: .readers(["r1"]), nowUnixMs: 1)
        #expect(sends.count == 1)
        if case .readerRemoved(let id) = sends.first?.events.first?.event { #expect(id == "r1") } else { Issue.record("no removal") }
        // A full comparison of account a with r2 gone: a hears of r2, b (not in scope) keeps rb.
        sends = book.refreshed([], scope: .accounts(["a"]), nowUnixMs: 2)
        #expect(sends.map(\.watcher) == [1])
        book.remove(1)
        #expect(book.accounts == ["b"])
    }
}
