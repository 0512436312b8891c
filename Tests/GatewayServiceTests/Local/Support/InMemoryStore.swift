import Foundation
import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
@testable import GatewayService
import GatewayWire
import Synchronization

/// The gateway's tables in memory, for the services' own tests: the same rules as the
/// PostgreSQL statements (leases and token expiry on the test's clock, the session epoch's
/// fencing, ownership decided by ``ReaderOwnershipStateMachine``, Bluetooth bonds by
/// ``BluetoothBondRule``), without a server. One lock over all tables; no call waits.
///
/// ``unavailable`` makes every statement fail as a PostgreSQL outage does (STORE_UNAVAILABLE).
final class InMemoryStore: Sendable {
    struct SessionRow {
        var id: String
        var token: String
        var accountID: String
        var posDeviceID: String
        var lane: String
        var locationScope: String?
        var node: String
        var epoch: Int64 = 1
        var leaseExpiresUnixMs: Int64
        var closed = false
        var discovery: SessionDiscoveryRecord?
    }

    struct TokenRow {
        var accountID: String
        var locationID: String?
        var expiresUnixMs: Int64
    }

    struct Tables {
        var tokens: [String: TokenRow] = [:]
        var sessions: [String: SessionRow] = [:]
        var readers: [String: ReaderRecord] = [:]
        var locations: [String: (account: String, record: LocationRecord)] = [:]
        var ownership: [ReaderID: ReaderOwnershipStateMachine] = [:]
        var homes: [ReaderID: ReaderHome] = [:]
        var bonds: [String: String] = [:]
        var tapToPayWindows: [String: TapToPayAccountWindow] = [:]
        var tapToPayTerms: Set<String> = []
        var deviceSetups: [String: (setup: TapToPayDeviceSetupRule.Setup, atUnixMs: Int64)] = [:]
        var catalogs: [String: [ReaderGatewayV1.ReaderSoftwareUpdate]] = [:]
        var installWindows: [String: InstallWindow] = [:]
        var ranLatest: [String: (location: String, atMs: Int64)] = [:]
        var batteries: [String: Float] = [:]
        /// Secret keys by id.
        var apiKeys: [String: ApiKeyRecord] = [:]
        /// Every secret of a key: its current one (`previous` nil), and those a roll replaced.
        var secrets: [String: (keyID: String, previous: (retiredAt: Date, validUntil: Date)?)] = [:]
        var consoleSessions: [String: ConsoleSessionRecord] = [:]
        /// `auth_failure_buckets`, by scope and key.
        var authFailures: [AuthLockoutCache.Subject: AuthFailureBucket] = [:]
        var registrationCodes: [String: (pending: PendingCodeRecord, expiresUnixMs: Int64)] = [:]
        /// Readers' credentials: the reader id of each.
        var credentials: [String: String] = [:]
        /// `ownership_history`, in the order rows were appended.
        var history: [OwnershipHistoryRecord] = []
        var nodes: [NodeRecord] = []
        var linkEndings: [String: [BluetoothStore.LinkEnding]] = [:]
        /// `audit_events`, in the order rows were appended.
        var audit: [AuditRecord] = []
        var unavailable = false
    }

    let clock: ManualClock
    let tables = Mutex(Tables())
    let tapToPayLimit = 3

    init(clock: ManualClock) {
        self.clock = clock
    }

    /// Runs `body` on the tables, or fails as an unreachable server does.
    func run<T>(_ body: (inout Tables) -> T) throws(StoreError) -> T {
        let result: T? = tables.withLock { tables in tables.unavailable ? nil : body(&tables) }
        guard let result else { throw StoreError(.connectionFailed, "the in-memory store is marked unavailable (a PostgreSQL outage)") }
        return result
    }

    /// PostgreSQL goes away (true) or comes back.
    func setUnavailable(_ unavailable: Bool) {
        tables.withLock { $0.unavailable = unavailable }
    }

    // MARK: fixtures

    /// Mints a connection token for `account` (limited to `location` when given) valid for `ttl`.
    @discardableResult
    func addConnectionToken(account: String, location: String? = nil, ttl: Duration = .seconds(600)) -> String {
        let secret = "ctok_\(UUID().uuidString)"
        let expires = clock.nowUnixMs + ttl.components.seconds * 1000
        tables.withLock { $0.tokens[secret] = TokenRow(accountID: account, locationID: location, expiresUnixMs: expires) }
        return secret
    }

    func addLocation(_ id: String, account: String) {
        tables.withLock { $0.locations[id] = (account, LocationRecord(id: id, displayName: "Location \(id)")) }
    }

    /// Registers a reader; `online`: its link is up (a connect may claim it).
    func addReader(
        _ id: String, account: String, location: String?, deviceType: ReaderGatewayV1.DeviceType = .bbposWiseposE,
        serial: String? = nil, online: Bool = true
    ) {
        let record = ReaderRecord(
            id: id, accountID: account, serial: serial ?? id.uppercased(), label: id, deviceType: deviceType,
            softwareVersion: "2.0.0", locationID: location, lastSeen: nil, online: online
        )
        tables.withLock {
            $0.readers[id] = record
            $0.ownership[ReaderID(id)] = ReaderOwnershipStateMachine(reader: ReaderID(id), link: online ? .online(LinkEpoch(1)) : .offline(LinkEpoch(0)))
        }
    }

    func bond(_ reader: String, to device: String) {
        tables.withLock { $0.bonds[reader] = device }
    }

    /// The session row with this id.
    func sessionRow(id: String) -> SessionRow? {
        tables.withLock { $0.sessions.values.first { $0.id == id } }
    }

    /// The reader's ownership as the store holds it.
    func ownership(of reader: String) -> ReaderOwnershipStateMachine? {
        tables.withLock { $0.ownership[ReaderID(reader)] }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
