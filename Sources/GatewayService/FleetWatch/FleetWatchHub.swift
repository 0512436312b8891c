import GatewayCore
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire
import Synchronization

/// This replica's `WatchFleet` watchers, and how they learn of changes made anywhere.
///
/// A change is a hint that names readers; the rows are the truth. Hints come from:
/// - `reader_gateway_ownership` (every change of owner or link that another replica must
///   hear: takeovers across replicas, releases, losses, attaches and detaches);
/// - `reader_gateway_fleet`, which every replica announces its own changes on that the
///   ownership trigger leaves out (a claim whose replica holds both the link and the
///   previous owner, the start and end of a collect or confirm, registrations, deletions),
///   one NOTIFY per announcement pass (every ``announcementInterval`` at most), whatever
///   the rate of changes, and only while another replica has a watcher (each replica's
///   count travels with its node heartbeat): nobody watching costs no NOTIFY;
/// - `reader_gateway_status` (activity and battery of readers homed elsewhere);
/// - `reader_gateway_keys` (``ApiKeyStore/revocationChannel``): a revoked key's watchers end
///   with `SECRET_KEY_RETIRED`, on every replica;
/// - this replica's own changes, at once, without waiting for PostgreSQL's echo;
/// - a full comparison of the watched accounts every ``fullRefreshInterval``, so a lost
///   hint delays a change, never loses it.
///
/// One refresh runs at a time: it takes every hint gathered so far, reads those readers'
/// rows in one query, and hands them to the ``FleetWatchBook``, which answers what each
/// watcher must hear. Sends go through ``ServerCall``; a watcher whose peer does not read
/// fills its call's bounded buffer and is ended with RESOURCE_EXHAUSTED
/// (`CONSUMER_TOO_SLOW`), alone.
///
/// Everything it keeps is one ``FleetWatchState`` value behind one `Mutex`: ``feed(_:)``
/// hands it an event under the lock and returns the action, which is performed after the
/// lock (messages are built, sent and continuations resumed outside it). `@unchecked
/// Sendable` is not needed.
final class FleetWatchHub: Sendable {
    /// The channel replicas announce their own fleet changes on (payload: reader ids, space separated).
    static let channel = "reader_gateway_fleet"
    /// A notification payload stays below PostgreSQL's 8,000-byte limit.
    static let maxPayloadBytes = 7_000
    /// The shortest time between two announcement passes (changes wait at most this long).
    static let announcementInterval: Duration = .milliseconds(25)
    /// The full comparison's period while someone watches.
    static let fullRefreshInterval: Duration = .seconds(2)

    let database: GatewayDatabase
    let registry: LiveRegistry
    let metrics: GatewayMetrics
    let logger = Logger(component: "fleet-watch")

    /// The hub's state: one value, one lock (``feed(_:)`` is the only place that takes it).
    private typealias State = FleetWatchState<ServerCall, CheckedContinuation<Void, Never>>

    private let state = Mutex(State())
    /// The watchers here (the state's count, stored under its lock), read without the lock
    /// on every change.
    private let localWatchers = Atomic<Int>(0)
    /// Whether another replica had a watcher at this replica's last node heartbeat. True
    /// until the first heartbeat says otherwise (announcing is the safe side).
    private let othersWatch = Atomic<Bool>(true)
    private let refreshSignal: AsyncStream<Void>.Continuation
    private let refreshSignals: AsyncStream<Void>
    private let announceSignal: AsyncStream<Void>.Continuation
    private let announceSignals: AsyncStream<Void>

    init(database: GatewayDatabase, registry: LiveRegistry, metrics: GatewayMetrics) {
        self.database = database
        self.registry = registry
        self.metrics = metrics
        (refreshSignals, refreshSignal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        (announceSignals, announceSignal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The number of watchers on this replica.
    var watcherCount: Int { localWatchers.load(ordering: .relaxed) }

    /// The other replicas' watchers, as the node heartbeat just read them. A watcher that
    /// opens elsewhere is announced to from that replica's next heartbeat and this one's
    /// (two heartbeat intervals at most); until then it learns this replica's changes from
    /// its replica's full comparison (``fullRefreshInterval``), late but not lost.
    func watchersElsewhere(_ count: Int) {
        othersWatch.store(count > 0, ordering: .relaxed)
    }

    // MARK: hints

    /// This replica changed `readers`: its watchers hear at once, the other replicas' after
    /// the next announcement. Nothing at all when nobody watches anywhere (two atomic loads).
    func changed(_ readers: [String]) {
        guard !readers.isEmpty else { return }
        let announce = othersWatch.load(ordering: .relaxed)
        guard announce || watcherCount > 0 else { return }
        perform(feed(.changed(readers, announce: announce)))
    }

    /// Something about `readers` may have changed: the next refresh reads them (when someone watches).
    func hint(_ readers: [String]) {
        guard watcherCount > 0 else { return }
        perform(feed(.hinted(readers)))
    }

    /// Every watched reader may have changed.
    func hintAll() {
        guard watcherCount > 0 else { return }
        perform(feed(.hintedAll))
    }

    // MARK: watchers

    /// Serves one `WatchFleet` call until it ends: sends the snapshot, then registers the
    /// watcher for changes.
    func watch(_ call: ServerCall, account: String, location: String?, locations: [ReaderGatewayV1.Location], key: String) async {
        guard case .watcherFiled(let id) = feed(.watcherOpened(call, key: key)) else { return }
        metrics.browser.fleetWatchers.unlabeled.increment()
        call.onCancel { [self] in forget(id) }
        await inTurn {
            let rows: [FleetRow]
            do { rows = try await database.fleet(account: account, location: location) } catch {
                call.end(ServiceError.store(error).status)
                return
            }
            guard !call.isFinished else { return }
            let readers = rows.map(fleetReader)
            let nowUnixMs = registry.clock.nowUnixMs
            _ = feed(.snapshotRead(id, account: account, location: location, readers: readers))
            for page in FleetWatchBook.snapshotPages(readers, locations: locations, nowUnixMs: nowUnixMs) { call.send(page) }
        }
        if call.isFinished { forget(id) }
    }

    /// Secret key `key` was revoked (here or on another replica): its watchers end now.
    func keyRevoked(_ key: String) {
        guard case .end(let calls) = feed(.keyRevoked(key)) else { return }
        let status = ServiceError(.secretKeyRetired, "the secret key of this WatchFleet (\(key)) was revoked; watch again with another key").status
        for call in calls {
            metrics.browser.fleetWatchers.unlabeled.decrement()
            call.end(status)
        }
        logger.info("watchers of a revoked key ended", ["key": key, "watchers": "\(calls.count)"])
    }

    private func forget(_ id: UInt64) {
        if case .watcherForgotten(removed: true) = feed(.watcherEnded(id)) { metrics.browser.fleetWatchers.unlabeled.decrement() }
    }

    // MARK: the one lock

    /// Feeds the state one event under the lock; the caller performs the action after it.
    private func feed(_ event: State.Event) -> State.Action {
        state.withLock { state in
            let action = state.handle(event)
            localWatchers.store(state.watcherCount, ordering: .relaxed)
            return action
        }
    }

    /// Performs a wake-up or a resumption (the actions no caller waits on).
    private func perform(_ action: State.Action) {
        switch action {
        case .wake(let refresh, let announce):
            if refresh { refreshSignal.yield() }
            if announce { announceSignal.yield() }
        case .resume(let waiter): waiter.resume()
        case .none, .watcherFiled, .watcherForgotten, .remoteStatus, .announce, .read, .send, .end: break
        }
    }

    /// Runs `body` when no other snapshot or refresh reads the store (one at a time, in the
    /// order they asked), so a watcher's snapshot and the changes after it are read in order.
    private func inTurn(_ body: () async -> Void) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in perform(feed(.turnAsked(waiter))) }
        await body()
        perform(feed(.turnFinished))
    }

    // MARK: background work

    /// Refreshes whenever hints arrive, and compares everything every ``fullRefreshInterval``; until cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.runRefreshes() }
            group.addTask { await self.runAnnouncements() }
            group.addTask { await self.runFullComparison() }
            group.addTask { await self.follow(OwnershipNotice.channel) { self.hint([$0.split(separator: " ").first.map(String.init) ?? ""]) } }
            group.addTask { await self.follow(Self.channel) { self.hint($0.split(separator: " ").map(String.init)) } }
            group.addTask { await self.follow(ApiKeyStore.revocationChannel) { self.keyRevoked($0) } }
            group.addTask {
                await self.follow(ReaderStatusNotice.channel) { payload in
                    guard let notice = ReaderStatusNotice(payload: payload) else { return }
                    _ = self.feed(.remoteStatusHeard(notice))
                    self.hint([notice.reader.rawValue])
                }
            }
        }
    }

    private func runRefreshes() async {
        for await _ in refreshSignals {
            await inTurn { await refresh() }
        }
    }

    private func runFullComparison() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: Self.fullRefreshInterval) } catch { return }
            hintAll()
        }
    }

    /// Sends what this replica changed as few NOTIFYs as the payload limit allows, one pass
    /// per ``announcementInterval`` at most: under a burst of claims the changes of that
    /// interval share a notification, so the store sees at most a few dozen a second.
    private func runAnnouncements() async {
        for await _ in announceSignals {
            do { try await Task.sleep(for: Self.announcementInterval) } catch { return }
            guard case .announce(let readers) = feed(.announcementDue) else { continue }
            var payload = ""
            for reader in readers {
                if payload.utf8.count + reader.utf8.count + 1 > Self.maxPayloadBytes {
                    await announce(payload)
                    payload = ""
                }
                payload += payload.isEmpty ? reader : " " + reader
            }
            if !payload.isEmpty { await announce(payload) }
        }
    }

    private func announce(_ payload: String) async {
        do {
            _ = try await database.client.execute("SELECT pg_notify($1, $2)", [PostgresValue(Self.channel), PostgresValue(payload)])
        } catch {
            // The other replicas' full comparison finds the change within its period.
            logger.debug("could not announce fleet changes", ["error": error])
        }
    }

    /// LISTENs on `channel` until cancelled; a resubscription (notices may have been
    /// missed) compares everything.
    private func follow(_ channel: String, _ body: @escaping @Sendable (String) -> Void) async {
        await database.client.follow(channel, subscribed: { hintAll() }) { notification in
            if notification.isResubscription { hintAll() } else { body(notification.payload) }
        }
    }

    /// Reads what the hints name and tells each watcher what changed.
    private func refresh() async {
        guard case .read(let asked, let all, let accounts) = feed(.refreshDue) else { return }
        var rows: [FleetRow] = []
        do {
            if all {
                for account in accounts.sorted() { rows += try await database.fleet(account: account, location: nil) }
            } else {
                rows = try await database.fleet(readers: asked.sorted(), accounts: accounts.sorted())
            }
        } catch {
            logger.warning("could not read the fleet for its watchers; the next comparison will", ["error": error])
            return
        }
        let scope: FleetWatchBook.Scope = all ? .accounts(accounts) : .readers(asked)
        let bookRows = rows.map { FleetWatchBook.Row(account: $0.reader.accountID, reader: fleetReader($0)) }
        let nowUnixMs = registry.clock.nowUnixMs
        guard case .send(let sends) = feed(.rowsRead(bookRows, scope: scope)) else { return }
        for (call, changes) in sends {
            for change in changes { call.send(FleetWatchBook.event(change, nowUnixMs: nowUnixMs)) }
            metrics.browser.fleetWatchEvents.unlabeled.increment(by: UInt64(changes.count))
        }
    }

    /// A row as watchers see it: live status from the link here, else the row's link and the
    /// last status its home replica announced. `last_seen` is left out (it changes with every
    /// heartbeat and would make every comparison a change).
    func fleetReader(_ row: FleetRow) -> ReaderGatewayV1.FleetReader {
        var reader = Gateway.describedReader(row.reader)
        if let link = registry.linkStatus(of: ReaderID(row.reader.id)) {
            reader = link.render(reader, nowUnixMs: 0)
        } else {
            reader.networkStatus = row.linked ? .online : .offline
            if row.linked, case .remoteStatus(let status?) = feed(.remoteStatusAsked(row.reader.id)) {
                reader.activity = status.activity
                reader.batteryLevel = status.batteryLevel
                reader.ipAddress = status.ipAddress
            }
        }
        reader.lastSeenUnixMs = 0
        var fleet = ReaderGatewayV1.FleetReader()
        fleet.reader = reader
        if let session = row.holderSession {
            var holder = ReaderGatewayV1.ReaderOwner()
            holder.sessionID = session
            holder.laneLabel = row.holderLane ?? ""
            holder.posDeviceID = row.holderPosDevice ?? ""
            fleet.holder = holder
        }
        if let since = row.since { fleet.holderSinceUnixMs = Int64(since.timeIntervalSince1970 * 1000) }
        fleet.inTransaction = row.inTransaction
        fleet.generation = UInt64(max(0, row.generation))
        return fleet
    }
}
