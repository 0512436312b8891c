import GatewayWire

/// Everything ``FleetWatchHub`` keeps between its events: the watchers' calls and what each
/// was told (``FleetWatchBook``), the hints the next refresh must read, the changes not
/// announced yet, the status other replicas announced, and whose turn it is to read the
/// store. Pure: the hub feeds it one ``Event`` under its one lock and performs the
/// ``Action`` it answers after the lock (sends, wake-ups, continuations); no message is
/// built here.
///
/// Generic over the watcher's call and the turn's waiter so that it is tested with plain
/// values (the hub uses `ServerCall` and a `CheckedContinuation`).
///
/// ```
///   hint ──▶ pending ──refreshDue──▶ taken (the hub reads the rows) ──rowsRead──▶ changes to send
///   changed ──▶ outgoing ──announcementDue──▶ taken (the hub sends NOTIFYs)
///   turnAsked ──▶ runs now, or waits ──turnFinished──▶ the next waiter runs
/// ```
struct FleetWatchState<Call: Sendable, Waiter: Sendable>: Sendable {
    /// What the hub hears.
    enum Event: Sendable {
        /// This replica changed `readers`; `announce`: another replica has a watcher, so the
        /// next announcement names them.
        case changed([String], announce: Bool)
        /// Something about `readers` may have changed.
        case hinted([String])
        /// Every watched reader may have changed.
        case hintedAll
        /// A `WatchFleet` call started, authorised by secret key `key`: it gets an id.
        case watcherOpened(Call, key: String = "")
        /// Secret key `key` was revoked: its watchers end.
        case keyRevoked(String)
        /// The watcher's snapshot was read: it is told of these readers from now on.
        case snapshotRead(UInt64, account: String, location: String?, readers: [ReaderGatewayV1.FleetReader])
        /// The watcher's call ended.
        case watcherEnded(UInt64)
        /// The home replica of a reader linked elsewhere announced its status.
        case remoteStatusHeard(ReaderStatusNotice)
        /// A row is rendered: the status last announced for its reader, if any.
        case remoteStatusAsked(String)
        /// The announcement pass runs: the readers changed here since the last one.
        case announcementDue
        /// A refresh runs: the hints gathered so far.
        case refreshDue
        /// The refresh read `rows` for `scope`: what each watcher must hear.
        case rowsRead([FleetWatchBook.Row], scope: FleetWatchBook.Scope)
        /// A snapshot or a refresh wants to read the store (one at a time, in order).
        case turnAsked(Waiter)
        /// The snapshot or refresh that had the turn is done.
        case turnFinished
    }

    /// What the hub does after the lock.
    enum Action: Sendable {
        /// Nothing.
        case none
        /// Wake the refresh loop and/or the announcement loop.
        case wake(refresh: Bool, announce: Bool)
        /// The new watcher's id.
        case watcherFiled(UInt64)
        /// The watcher is forgotten; `removed`: it was still filed (count it out once).
        case watcherForgotten(removed: Bool)
        /// The status last announced for the reader asked about.
        case remoteStatus(ReaderStatusNotice?)
        /// Announce these readers (sorted) on the fleet channel.
        case announce([String])
        /// Read these readers' rows (or, `all`, every row of `accounts`); nothing to read when
        /// nobody watches or nothing was hinted.
        case read(readers: Set<String>, all: Bool, accounts: Set<String>)
        /// Send each watcher's changes on its call.
        case send([(call: Call, changes: [FleetWatchBook.Change])])
        /// Let this waiter run.
        case resume(Waiter)
        /// End these watchers' calls (their key was revoked); they are forgotten already.
        case end([Call])
    }

    private(set) var book = FleetWatchBook()
    private var nextID: UInt64 = 1
    private var calls: [UInt64: Call] = [:]
    /// The secret key each watcher's call was authorised by.
    private var keys: [UInt64: String] = [:]
    private var pendingReaders: Set<String> = []
    private var pendingAll = false
    private var outgoing: Set<String> = []
    private var remoteStatus: [String: ReaderStatusNotice] = [:]
    private var turnTaken = false
    private var waiting: [Waiter] = []

    /// The watchers here.
    var watcherCount: Int { calls.count }

    mutating func handle(_ event: Event) -> Action {
        switch event {
        case .changed(let readers, let announce):
            if announce { outgoing.formUnion(readers) }
            let refresh = !calls.isEmpty
            if refresh { pendingReaders.formUnion(readers) }
            return .wake(refresh: refresh, announce: announce)
        case .hinted(let readers):
            guard !calls.isEmpty else { return .none }
            pendingReaders.formUnion(readers)
            return .wake(refresh: true, announce: false)
        case .hintedAll:
            guard !calls.isEmpty else { return .none }
            pendingAll = true
            return .wake(refresh: true, announce: false)
        case .watcherOpened(let call, let key):
            let id = nextID
            nextID += 1
            calls[id] = call
            keys[id] = key
            return .watcherFiled(id)
        case .keyRevoked(let key):
            let ids = keys.filter { !key.isEmpty && $0.value == key }.keys.sorted()
            let ended = ids.compactMap { id -> Call? in
                keys[id] = nil
                book.remove(id)
                return calls.removeValue(forKey: id)
            }
            return ended.isEmpty ? .none : .end(ended)
        case .snapshotRead(let id, let account, let location, let readers):
            book.add(id, account: account, location: location, readers: readers)
            return .none
        case .watcherEnded(let id):
            let removed = calls.removeValue(forKey: id) != nil
            keys[id] = nil
            book.remove(id)
            return .watcherForgotten(removed: removed)
        case .remoteStatusHeard(let notice):
            remoteStatus[notice.reader.rawValue] = notice
            return .none
        case .remoteStatusAsked(let reader):
            return .remoteStatus(remoteStatus[reader])
        case .announcementDue:
            defer { outgoing = [] }
            return .announce(outgoing.sorted())
        case .refreshDue:
            defer { (pendingReaders, pendingAll) = ([], false) }
            let accounts = book.accounts
            guard !accounts.isEmpty, pendingAll || !pendingReaders.isEmpty else { return .none }
            return .read(readers: pendingReaders, all: pendingAll, accounts: accounts)
        case .rowsRead(let rows, let scope):
            let sends = book.refreshed(rows, scope: scope).compactMap { sent in calls[sent.watcher].map { (call: $0, changes: sent.changes) } }
            return sends.isEmpty ? .none : .send(sends)
        case .turnAsked(let waiter):
            guard turnTaken else {
                turnTaken = true
                return .resume(waiter)
            }
            waiting.append(waiter)
            return .none
        case .turnFinished:
            guard !waiting.isEmpty else {
                turnTaken = false
                return .none
            }
            return .resume(waiting.removeFirst())
        }
    }
}
