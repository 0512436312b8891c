import GatewayDomain
@testable import GatewayService
import GatewayWire
import Testing

/// ``FleetWatchState`` without I/O: hints pend only while someone watches, announcements take
/// what changed, a refresh takes its hints once, changes go to the calls still filed, and the
/// store is read one turn at a time in the order asked.
@Suite("FleetWatchState")
struct FleetWatchStateTests {
    typealias State = FleetWatchState<String, Int>

    static func fleet(_ id: String, holder: String? = nil) -> ReaderGatewayV1.FleetReader {
        FleetWatchBookTests.fleet(id, holder: holder)
    }

    /// A state with one watcher of account "a" (call "call-1", id 1) whose snapshot held `readers`.
    static func watched(_ readers: [String] = []) -> State {
        var state = State()
        guard case .watcherFiled(let id) = state.handle(.watcherOpened("call-1")) else {
            Issue.record("no id for the watcher")
            return state
        }
        #expect(id == 1)
        _ = state.handle(.snapshotRead(id, account: "a", location: nil, readers: readers.map { fleet($0) }))
        return state
    }

    @Test func hintsPendOnlyWhileSomeoneWatches() {
        var state = State()
        guard case .none = state.handle(.hinted(["r1"])) else { Issue.record("a hint with no watcher woke the refresh"); return }
        guard case .none = state.handle(.hintedAll) else { Issue.record("hintAll with no watcher woke the refresh"); return }
        guard case .wake(refresh: false, announce: true) = state.handle(.changed(["r1"], announce: true)) else {
            Issue.record("a change no one here watches must still be announced, without a refresh"); return
        }
        state = Self.watched(["r1"])
        guard case .none = state.handle(.refreshDue) else { Issue.record("nothing was hinted, yet a read was asked"); return }
        guard case .wake(refresh: true, announce: false) = state.handle(.hinted(["r2"])) else { Issue.record("a hint did not wake the refresh"); return }
        guard case .wake(refresh: true, announce: false) = state.handle(.changed(["r3"], announce: false)) else {
            Issue.record("a change here did not wake the refresh"); return
        }
        guard case .read(let readers, let all, let accounts) = state.handle(.refreshDue) else { Issue.record("no read"); return }
        #expect(readers == ["r2", "r3"] && !all && accounts == ["a"])
        // Taken: the next refresh has nothing to read until the next hint.
        guard case .none = state.handle(.refreshDue) else { Issue.record("the hints were read twice"); return }
        _ = state.handle(.hintedAll)
        guard case .read(_, all: true, _) = state.handle(.refreshDue) else { Issue.record("hintAll did not read everything"); return }
    }

    @Test func anAnnouncementTakesTheChangedReadersSortedOnce() {
        var state = State()
        _ = state.handle(.changed(["r2", "r1"], announce: true))
        _ = state.handle(.changed(["r1", "r3"], announce: true))
        _ = state.handle(.changed(["r9"], announce: false))
        guard case .announce(let first) = state.handle(.announcementDue) else { Issue.record("no announcement"); return }
        #expect(first == ["r1", "r2", "r3"])
        guard case .announce(let second) = state.handle(.announcementDue) else { Issue.record("no announcement"); return }
        #expect(second.isEmpty)
    }

    @Test func changesGoToTheCallsStillFiled() {
        var state = Self.watched(["r1"])
        guard case .watcherFiled(let second) = state.handle(.watcherOpened("call-2")) else { Issue.record("no id"); return }
        _ = state.handle(.snapshotRead(second, account: "a", location: nil, readers: []))
        #expect(state.watcherCount == 2)
        let rows = [FleetWatchBook.Row(account: "a", reader: Self.fleet("r1", holder: "Lane A"))]
        guard case .send(let sends) = state.handle(.rowsRead(rows, scope: .readers(["r1"]))) else { Issue.record("nothing to send"); return }
        #expect(sends.map(\.call) == ["call-1", "call-2"])
        #expect(sends.map(\.changes.count) == [1, 1])
        // The first call ends: counted out once, and it hears nothing more.
        guard case .watcherForgotten(removed: true) = state.handle(.watcherEnded(1)) else { Issue.record("not removed"); return }
        guard case .watcherForgotten(removed: false) = state.handle(.watcherEnded(1)) else { Issue.record("removed twice"); return }
        guard case .send(let after) = state.handle(.rowsRead([], scope: .readers(["r1"]))) else { Issue.record("the removal was not sent"); return }
        #expect(after.map(\.call) == ["call-2"])
        #expect(after.first?.changes == [.removed("r1")])
        guard case .none = state.handle(.rowsRead([], scope: .readers(["r1"]))) else { Issue.record("a removal was sent twice"); return }
    }

    @Test func aRevokedKeysWatchersEndAndHearNothingMore() {
        var state = State()
        var ids: [String: UInt64] = [:]
        for (call, key) in [("call-1", "key_a"), ("call-2", "key_b"), ("call-3", "key_a")] {
            guard case .watcherFiled(let id) = state.handle(.watcherOpened(call, key: key)) else { Issue.record("no id"); return }
            _ = state.handle(.snapshotRead(id, account: "a", location: nil, readers: [Self.fleet("r1")]))
            ids[call] = id
        }
        guard case .end(let ended) = state.handle(.keyRevoked("key_a")) else { Issue.record("the revoked key's watchers were not ended"); return }
        #expect(ended == ["call-1", "call-3"])
        #expect(state.watcherCount == 1)
        guard case .none = state.handle(.keyRevoked("key_a")) else { Issue.record("ended twice"); return }
        guard case .none = state.handle(.keyRevoked("")) else { Issue.record("a key without an id ended watchers"); return }
        // Their calls' own end afterwards counts nothing out twice.
        guard case .watcherForgotten(removed: false) = state.handle(.watcherEnded(ids["call-1"] ?? 0)) else { Issue.record("removed twice"); return }
        let rows = [FleetWatchBook.Row(account: "a", reader: Self.fleet("r1", holder: "Lane A"))]
        guard case .send(let sends) = state.handle(.rowsRead(rows, scope: .readers(["r1"]))) else { Issue.record("nothing to send"); return }
        #expect(sends.map(\.call) == ["call-2"])
    }

    @Test func theLastAnnouncedStatusOfAReaderElsewhereIsKept() {
        var state = State()
        guard case .remoteStatus(nil) = state.handle(.remoteStatusAsked("r1")) else { Issue.record("a status out of nowhere"); return }
        let notice = ReaderStatusNotice(reader: ReaderID("r1"), activity: .idle, batteryLevel: 0.5, ipAddress: "10.0.0.7")
        _ = state.handle(.remoteStatusHeard(notice))
        guard case .remoteStatus(let kept?) = state.handle(.remoteStatusAsked("r1")) else { Issue.record("the status was not kept"); return }
        #expect(kept == notice)
    }

    @Test func theStoreIsReadOneTurnAtATimeInTheOrderAsked() {
        var state = State()
        guard case .resume(1) = state.handle(.turnAsked(1)) else { Issue.record("the first turn waited"); return }
        guard case .none = state.handle(.turnAsked(2)) else { Issue.record("a second turn ran at once"); return }
        guard case .none = state.handle(.turnAsked(3)) else { Issue.record("a third turn ran at once"); return }
        guard case .resume(2) = state.handle(.turnFinished) else { Issue.record("the second did not follow the first"); return }
        guard case .resume(3) = state.handle(.turnFinished) else { Issue.record("the third did not follow the second"); return }
        guard case .none = state.handle(.turnFinished) else { Issue.record("a turn out of nowhere"); return }
        guard case .resume(4) = state.handle(.turnAsked(4)) else { Issue.record("a free turn was not taken at once"); return }
    }
}
