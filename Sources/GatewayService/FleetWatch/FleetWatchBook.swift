import GatewayWire

/// What each `WatchFleet` watcher of this replica was last told, and what to tell it next.
///
/// Pure, and decides on plain values: the hub (``FleetWatchHub``) feeds it the rows it read
/// under its lock and builds the messages of the changes it answers after the lock. A watcher hears a reader only when the reader's state differs from what it was
/// last told, so a refresh that finds nothing new sends nothing.
///
/// ```
///   watch ──snapshot read──▶ added (snapshot pages sent) ──refreshed──▶ changes (sent) ──▶ …
///                                    │
///                                    └── call ended / too slow ──▶ removed
/// ```
struct FleetWatchBook: Sendable {
    /// A watcher: whose readers, which location, and what it was last told of each reader.
    struct Watcher: Sendable {
        var account: String
        var location: String?
        var sent: [String: ReaderGatewayV1.FleetReader]
    }

    /// Which readers a refresh read: the rows answer for every reader in scope, so a reader
    /// in scope without a row was deleted.
    enum Scope: Sendable, Hashable {
        /// These readers (those of no watched account are simply absent).
        case readers(Set<String>)
        /// Every reader of these accounts.
        case accounts(Set<String>)
    }

    /// One reader as a refresh read it, with its account.
    struct Row: Sendable {
        var account: String
        var reader: ReaderGatewayV1.FleetReader
    }

    /// Readers per snapshot page: a page stays far below the frame size limit.
    static let pageSize = 200

    private(set) var watchers: [UInt64: Watcher] = [:]

    /// The accounts someone watches.
    var accounts: Set<String> { Set(watchers.values.map(\.account)) }

    /// What a watcher hears of one reader after a refresh: decided on plain values under the
    /// hub's lock, turned into a `WatchFleetEvent` after it (``event(_:nowUnixMs:)``).
    enum Change: Sendable, Equatable {
        /// The reader is new to the watcher or differs from what it was told.
        case changed(ReaderGatewayV1.FleetReader)
        /// The reader the watcher was told of has no row any more.
        case removed(String)
    }

    /// A new watcher whose snapshot is `readers` (the hub sends the pages,
    /// ``snapshotPages(_:locations:nowUnixMs:)``, after its lock).
    mutating func add(_ id: UInt64, account: String, location: String?, readers: [ReaderGatewayV1.FleetReader]) {
        var sent: [String: ReaderGatewayV1.FleetReader] = [:]
        for reader in readers { sent[reader.readerID] = reader }
        watchers[id] = Watcher(account: account, location: location, sent: sent)
    }

    /// A snapshot of `readers` as pages to send, the last one `complete` (at least one page).
    static func snapshotPages(
        _ readers: [ReaderGatewayV1.FleetReader], locations: [ReaderGatewayV1.Location], nowUnixMs: Int64
    ) -> [ReaderGatewayV1.WatchFleetEvent] {
        var pages: [ReaderGatewayV1.WatchFleetEvent] = []
        var start = 0
        repeat {
            var snapshot = ReaderGatewayV1.FleetSnapshot()
            snapshot.readers = Array(readers[start..<min(readers.count, start + Self.pageSize)])
            if start == 0 { snapshot.locations = locations }
            start += Self.pageSize
            snapshot.complete = start >= readers.count
            var event = ReaderGatewayV1.WatchFleetEvent()
            event.atUnixMs = nowUnixMs
            event.event = .snapshot(snapshot)
            pages.append(event)
        } while start < readers.count
        return pages
    }

    /// The message that tells a watcher of `change`.
    static func event(_ change: Change, nowUnixMs: Int64) -> ReaderGatewayV1.WatchFleetEvent {
        var event = ReaderGatewayV1.WatchFleetEvent()
        event.atUnixMs = nowUnixMs
        switch change {
        case .changed(let reader): event.event = .readerChanged(reader)
        case .removed(let reader): event.event = .readerRemoved(reader)
        }
        return event
    }

    /// Forgets a watcher (its call ended).
    mutating func remove(_ id: UInt64) {
        watchers[id] = nil
    }

    /// What each watcher must hear after a refresh that read `rows` for `scope`: a reader
    /// of its account and location that is new or differs from what it was told, and the
    /// removal of a reader it was told of that is in scope but has no row any more.
    mutating func refreshed(_ rows: [Row], scope: Scope) -> [(watcher: UInt64, changes: [Change])] {
        var byAccount: [String: [ReaderGatewayV1.FleetReader]] = [:]
        var present = Set<String>()
        for row in rows {
            byAccount[row.account, default: []].append(row.reader)
            present.insert(row.reader.readerID)
        }
        var out: [(watcher: UInt64, changes: [Change])] = []
        for id in watchers.keys.sorted() {
            // Taken out while it changes: a copy left in the dictionary would make the first
            // change copy the watcher's whole `sent` (every reader it watches) on every refresh.
            guard var watcher = watchers.removeValue(forKey: id) else { continue }
            var changes: [Change] = []
            for reader in byAccount[watcher.account] ?? [] {
                guard watcher.location == nil || reader.reader?.locationID == watcher.location else { continue }
                guard watcher.sent[reader.readerID] != reader else { continue }
                watcher.sent[reader.readerID] = reader
                changes.append(.changed(reader))
            }
            // Gone: sent before, within the scope read, and not read now. A refresh of a few
            // hinted readers looks at those alone, not at every reader the watcher has.
            let gone: [String]
            switch scope {
            case .readers(let asked):
                gone = Array(asked.filter { watcher.sent[$0] != nil && !present.contains($0) })
            case .accounts(let accounts):
                gone = accounts.contains(watcher.account) ? watcher.sent.keys.filter { !present.contains($0) } : []
            }
            for reader in gone.sorted() {
                watcher.sent[reader] = nil
                changes.append(.removed(reader))
            }
            watchers[id] = watcher
            if !changes.isEmpty { out.append((id, changes)) }
        }
        return out
    }
}

extension ReaderGatewayV1.FleetReader {
    /// The reader's id (empty when the message carries no reader).
    var readerID: String { reader?.id ?? "" }
}
