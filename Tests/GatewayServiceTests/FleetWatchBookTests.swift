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
        book.add(1, account: "acct", location: nil, readers: readers)
        #expect(book.watchers[1]?.sent.count == 450)
        let pages = FleetWatchBook.snapshotPages(readers, locations: [ReaderGatewayV1.Location()], nowUnixMs: 5)
        #expect(pages.allSatisfy { $0.atUnixMs == 5 })
        let snapshots = pages.compactMap { if case .snapshot(let page) = $0.event { page } else { nil } }
        #expect(snapshots.map(\.readers.count) == [200, 200, 50])
        #expect(snapshots.map(\.complete) == [false, false, true])
        #expect(snapshots.map(\.locations.count) == [1, 0, 0])
        let empty = FleetWatchBook.snapshotPages([], locations: [], nowUnixMs: 5)
        #expect(empty.count == 1)
        if case .snapshot(let page) = empty.first?.event { #expect(page.complete && page.readers.isEmpty) } else { Issue.record("no snapshot page") }
    }

    @Test func aRefreshSendsOnlyWhatChangedToTheWatchersItConcerns() {
        var book = FleetWatchBook()
        book.add(1, account: "a", location: nil, readers: [Self.fleet("r1"), Self.fleet("r2")])
        book.add(2, account: "a", location: "tml_b", readers: [])
        book.add(3, account: "other", location: nil, readers: [])
        // r1 unchanged, r2 taken by Lane A: only watcher 1 hears, only of r2.
        var sends = book.refreshed([.init(account: "a", reader: Self.fleet("r1")), .init(account: "a", reader: Self.fleet("r2", holder: "Lane A"))], scope: .readers(["r1", "r2"]))
        #expect(sends.map(\.watcher) == [1])
        #expect(sends.first?.changes.count == 1)
        if case .changed(let fleet) = sends.first?.changes.first { #expect(fleet.holder?.laneLabel == "Lane A") } else { Issue.record("no change") }
        // The same rows again: nothing to say.
        sends = book.refreshed([.init(account: "a", reader: Self.fleet("r2", holder: "Lane A"))], scope: .readers(["r2"]))
        #expect(sends.isEmpty)
        // A new reader at tml_b: watcher 1 (all locations) and 2 (tml_b) hear it, the other account does not.
        sends = book.refreshed([.init(account: "a", reader: Self.fleet("r3", location: "tml_b"))], scope: .readers(["r3"]))
        #expect(sends.map(\.watcher) == [1, 2])
    }

    @Test func aReaderInScopeWithoutARowIsRemoved() {
        var book = FleetWatchBook()
        book.add(1, account: "a", location: nil, readers: [Self.fleet("r1"), Self.fleet("r2")])
        book.add(2, account: "b", location: nil, readers: [Self.fleet("rb")])
        // r1 asked for and absent: removed; r2 not asked for: kept.
        var sends = book.refreshed([], scope: .readers(["r1"]))
        #expect(sends.count == 1)
        if case .removed(let id) = sends.first?.changes.first { #expect(id == "r1") } else { Issue.record("no removal") }
        // A full comparison of account a with r2 gone: a hears of r2, b (not in scope) keeps rb.
        sends = book.refreshed([], scope: .accounts(["a"]))
        #expect(sends.map(\.watcher) == [1])
        #expect(sends.first?.changes == [.removed("r2")])
        book.remove(1)
        #expect(book.accounts == ["b"])
    }

    @Test func aChangeBecomesTheMessageThatTellsIt() {
        let changed = FleetWatchBook.event(.changed(Self.fleet("r1", holder: "Lane A")), nowUnixMs: 7)
        #expect(changed.atUnixMs == 7)
        if case .readerChanged(let fleet) = changed.event { #expect(fleet.readerID == "r1" && fleet.holder?.laneLabel == "Lane A") } else { Issue.record("not a change") }
        if case .readerRemoved(let id) = FleetWatchBook.event(.removed("r2"), nowUnixMs: 7).event { #expect(id == "r2") } else { Issue.record("not a removal") }
    }
}
