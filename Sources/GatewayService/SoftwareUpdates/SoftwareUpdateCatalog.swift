import GatewayCore
import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire
import Synchronization

/// The software update catalogs as the service reads them: each account's catalog, cached for
/// ``cacheLifetime`` (a connect does not read PostgreSQL for it; a change made here is seen at
/// once, one made on another replica within the lifetime), the update rules applied at the
/// clock of the configuration, and the battery levels recorded only when worth a write.
///
/// What it keeps is one ``State`` value behind one lock.
final class SoftwareUpdateCatalog: Sendable {
    let store: any SoftwareUpdateRepository
    let clock: WallClock
    /// The services' clock, for the cache's lifetime.
    let cacheClock: any ServiceClock
    /// How long a cached catalog is used before it is read again.
    let cacheLifetime: Duration
    let logger = Logger(component: "service")

    /// The caches and reports: one value, one lock (``feed(_:)`` is the only place that takes it).
    private let state = Mutex(State())

    init(store: any SoftwareUpdateRepository, clock: WallClock, cacheClock: any ServiceClock, cacheLifetime: Duration = .seconds(5)) {
        self.store = store
        self.clock = clock
        self.cacheClock = cacheClock
        self.cacheLifetime = cacheLifetime
    }

    var nowUnixMs: Int64 { clock.nowUnixMs() }

    /// The account's catalog entries for `deviceType`.
    func entries(account: String, deviceType: ReaderGatewayV1.DeviceType) async throws(StoreError) -> [ReaderGatewayV1.ReaderSoftwareUpdate] {
        let now = cacheClock.now
        if case .catalog(let cached?) = feed(.catalogAsked(account: account, now: now, lifetime: cacheLifetime)) {
            return cached.filter { $0.deviceType == deviceType }
        }
        let all = try await store.catalog(account: account, deviceType: .unspecified)
        feed(.catalogRead(account: account, all, at: now))
        return all.filter { $0.deviceType == deviceType }
    }

    /// The account's catalog changed here: the next read goes to PostgreSQL.
    func invalidate(account: String) {
        feed(.catalogChanged(account: account))
    }

    /// The install window of the account's `location` (nil: none, or no location), cached
    /// like the catalog.
    func installWindow(account: String, location: String) async throws(StoreError) -> InstallWindow? {
        guard !location.isEmpty else { return nil }
        let now = cacheClock.now
        if case .window(let cached?) = feed(.windowAsked(location: location, now: now, lifetime: cacheLifetime)) { return cached }
        let window = try await store.installWindows(account: account, locations: [location])[location]
        feed(.windowRead(location: location, window, at: now))
        return window
    }

    /// The location's install window changed here: the next read goes to PostgreSQL.
    func invalidateWindow(location: String) {
        feed(.windowChanged(location: location))
    }

    /// The decision for a reader at `location` running `version` with `batteryLevel`, and the
    /// catalog entry it names. The location's install window is read only for a device type
    /// with a catalog.
    func decide(
        account: String, deviceType: ReaderGatewayV1.DeviceType, location: String, version: String, batteryLevel: Float?
    ) async throws(StoreError) -> (SoftwareUpdatePolicy.Decision, ReaderGatewayV1.ReaderSoftwareUpdate?) {
        let entries = try await entries(account: account, deviceType: deviceType)
        guard !entries.isEmpty else { return (.upToDate, nil) }
        let window = try await installWindow(account: account, location: location)
        let nowMs = nowUnixMs
        let catalog = entries.compactMap { entry in
            SoftwareVersion(entry.version).map { SoftwareUpdatePolicy.Update(version: $0, requiredAtMs: entry.requiredAtUnixMs == 0 ? nil : entry.requiredAtUnixMs) }
        }
        let decision = SoftwareUpdatePolicy.decide(
            SoftwareUpdatePolicy.Reader(version: SoftwareVersion(version), batteryLevel: batteryLevel), catalog: catalog, nowMs: nowMs,
            window: window
        )
        guard let chosen = decision.update, var entry = entries.first(where: { SoftwareVersion($0.version) == chosen.version }) else {
            return (decision, nil)
        }
        entry.required = !decision.runsLatest
        return (decision, entry)
    }

    /// `reader` with its available update filled in (fleet view, discovery, connect).
    func withAvailableUpdate(_ reader: ReaderGatewayV1.Reader, account: String) async -> ReaderGatewayV1.Reader {
        var reader = reader
        do {
            reader.availableUpdate = try await decide(
                account: account, deviceType: reader.deviceType, location: reader.locationID, version: reader.softwareVersion,
                batteryLevel: reader.batteryLevel
            ).1
        } catch {
            logger.warning("could not read the software update catalog; the reader is shown without its available update", [
                "reader": reader.id, "error": error,
            ])
        }
        return reader
    }

    /// A hello's or heartbeat's battery level and version (empty: not reported): whether the
    /// level should be written to PostgreSQL, and whether the version changed since the link's
    /// hello (the first report only remembers it: the attach writes the hello's version).
    /// One small lock; the registry's is not taken unless the version changed. `recorded`: the
    /// level is in the store already (the attach wrote it): it counts as the last write and
    /// `writeBattery` is false.
    func linkReported(_ reader: ReaderID, level: Float?, version: String, recorded: Bool = false) -> (writeBattery: Bool, newVersion: Bool) {
        let event = State.Event.linkReported(reader, level: level, version: version, nowMs: nowUnixMs, recorded: recorded)
        guard case .report(let writeBattery, let newVersion) = feed(event) else {
            return (false, false)
        }
        return (writeBattery, newVersion)
    }

    /// The reader's link ended: its reports go (the next link writes its first level).
    func linkEnded(_ reader: ReaderID) {
        feed(.linkEnded(reader))
    }

    /// The reader's battery write finished: the level to write next, if one was reported worth
    /// writing meanwhile (`.some(nil)`: no battery), nil when none waits.
    func batteryWritten(_ reader: ReaderID) -> Float?? {
        guard case .writeBattery(let level) = feed(.batteryWritten(reader)) else { return nil }
        return .some(level)
    }

    /// Feeds the state one event under the lock; the store is read after it.
    @discardableResult
    private func feed(_ event: State.Event) -> State.Action {
        state.withLock { $0.handle(event) }
    }
}
