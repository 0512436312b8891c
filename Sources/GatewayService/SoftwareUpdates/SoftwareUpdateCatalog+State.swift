import GatewayDomain
import GatewayWire

extension SoftwareUpdateCatalog {
    /// What the catalog keeps between reads, as a value: each account's catalog and each
    /// location's install window as last read (and when), and what each reader's link last
    /// reported. Pure; ``SoftwareUpdateCatalog`` feeds it one event under its one lock and
    /// reads the store after it.
    struct State: Sendable {
        enum Event: Sendable {
            /// The account's catalog is wanted at `now`: the cached one if younger than `lifetime`.
            case catalogAsked(account: String, now: ContinuousClock.Instant, lifetime: Duration)
            /// The account's catalog was read from the store at `at`.
            case catalogRead(account: String, [ReaderGatewayV1.ReaderSoftwareUpdate], at: ContinuousClock.Instant)
            /// The account's catalog changed here.
            case catalogChanged(account: String)
            /// The location's install window is wanted at `now`: the cached one if younger than `lifetime`.
            case windowAsked(location: String, now: ContinuousClock.Instant, lifetime: Duration)
            /// The location's install window was read from the store at `at` (nil: it has none).
            case windowRead(location: String, InstallWindow?, at: ContinuousClock.Instant)
            /// The location's install window changed here.
            case windowChanged(location: String)
            /// A hello or heartbeat reported `level` and `version` (empty: not reported) at `nowMs`;
            /// `recorded`: the level was written with the attach (it counts as the last write).
            case linkReported(ReaderID, level: Float?, version: String, nowMs: Int64, recorded: Bool)
            /// The reader's link ended.
            case linkEnded(ReaderID)
            /// The reader's battery write (``Action/report(writeBattery:newVersion:)`` or
            /// ``Action/writeBattery(_:)``) finished, stored or not.
            case batteryWritten(ReaderID)
        }

        enum Action: Sendable {
            case none
            /// The cached catalog (nil: read the store).
            case catalog([ReaderGatewayV1.ReaderSoftwareUpdate]?)
            /// The cached install window (`.some(nil)`: none; nil: read the store).
            case window(InstallWindow??)
            /// Whether to write the battery level, and whether the version changed since the link's hello.
            /// A level worth writing while the reader's previous write is still on its way waits
            /// for it (`writeBattery` false): two writes in flight could commit in either order.
            case report(writeBattery: Bool, newVersion: Bool)
            /// Write this level next: it was reported while the previous write was on its way
            /// (the latest of those reports).
            case writeBattery(Float?)
        }

        private struct Cached<Value: Sendable>: Sendable {
            var value: Value
            var readAt: ContinuousClock.Instant
        }

        /// What a reader's link last reported, for deciding what is worth a store write.
        private struct LinkReport: Sendable {
            var battery = BatteryReportThrottle()
            var version: String?
        }

        private var catalogs: [String: Cached<[ReaderGatewayV1.ReaderSoftwareUpdate]>] = [:]
        private var windows: [String: Cached<InstallWindow?>] = [:]
        private var reports: [ReaderID: LinkReport] = [:]
        /// Readers with a battery write on its way, and the level reported meanwhile that
        /// waits for it (kept across links: a new link's first level waits for the old one's).
        private var batteryWrites: [ReaderID: QueuedBattery] = [:]

        private struct QueuedBattery: Sendable {
            var level: Float?
            var queued = false
        }

        mutating func handle(_ event: Event) -> Action {
            switch event {
            case .catalogAsked(let account, let now, let lifetime):
                guard let cached = catalogs[account], now - cached.readAt < lifetime else { return .catalog(nil) }
                return .catalog(cached.value)
            case .catalogRead(let account, let updates, let at):
                catalogs[account] = Cached(value: updates, readAt: at)
            case .catalogChanged(let account):
                catalogs[account] = nil
            case .windowAsked(let location, let now, let lifetime):
                guard let cached = windows[location], now - cached.readAt < lifetime else { return .window(nil) }
                return .window(.some(cached.value))
            case .windowRead(let location, let window, let at):
                windows[location] = Cached(value: window, readAt: at)
            case .windowChanged(let location):
                windows[location] = nil
            case .linkReported(let reader, let level, let version, let nowMs, let recorded):
                var writeBattery: Bool
                if recorded {
                    // The attach wrote it. A write still on its way (an earlier link's) could
                    // commit after it: then this level is written again once that one is done.
                    reports[reader, default: LinkReport()].battery.recorded(level, nowMs: nowMs)
                    writeBattery = false
                    if batteryWrites[reader] != nil { batteryWrites[reader] = QueuedBattery(level: level, queued: true) }
                } else {
                    writeBattery = reports[reader, default: LinkReport()].battery.reported(level, nowMs: nowMs)
                    if writeBattery {
                        if batteryWrites[reader] != nil {
                            batteryWrites[reader] = QueuedBattery(level: level, queued: true)
                            writeBattery = false
                        } else {
                            batteryWrites[reader] = QueuedBattery()
                        }
                    }
                }
                guard !version.isEmpty else { return .report(writeBattery: writeBattery, newVersion: false) }
                let previous = reports[reader]?.version
                reports[reader]?.version = version
                return .report(writeBattery: writeBattery, newVersion: previous != nil && previous != version)
            case .linkEnded(let reader):
                reports[reader] = nil
            case .batteryWritten(let reader):
                guard let waiting = batteryWrites[reader], waiting.queued else {
                    batteryWrites[reader] = nil
                    return .none
                }
                batteryWrites[reader] = QueuedBattery()
                return .writeBattery(waiting.level)
            }
            return .none
        }
    }
}
