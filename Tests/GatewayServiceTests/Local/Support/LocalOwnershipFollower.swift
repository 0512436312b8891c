import GatewayDomain
@testable import GatewayService
import GatewayWire
import Synchronization

/// The cluster as one replica sees it when it is the only one: every ownership change went
/// through this replica's registry, so a refresh finds the row as memory has it; it fails
/// when the store cannot be read (``InMemoryStore/setUnavailable(_:)``). Counts refreshes.
final class LocalOwnershipFollower: OwnershipFollowing {
    let store: InMemoryStore
    private let refreshed = Mutex<[ReaderID]>([])

    init(store: InMemoryStore) {
        self.store = store
    }

    @discardableResult
    func refresh(_ reader: ReaderID) async -> Bool {
        refreshed.withLock { $0.append(reader) }
        return !store.tables.withLock { $0.unavailable }
    }

    /// The readers refreshed so far, in order.
    var refreshes: [ReaderID] { refreshed.withLock { $0 } }
}

/// The fleet's watchers as a list of what they were told changed, and of the watches
/// started (each watch's call ends at once: no change is streamed here).
final class RecordedFleetChanges: FleetWatching {
    struct Watch: Equatable {
        var account: String
        var location: String?
        var locations: [String]
    }

    private let told = Mutex<[String]>([])
    private let started = Mutex<[Watch]>([])

    func changed(_ readers: [String]) {
        told.withLock { $0 += readers }
    }

    func watch(_ call: ServerCall, account: String, location: String?, locations: [ReaderGatewayV1.Location], key: String) async {
        started.withLock { $0.append(Watch(account: account, location: location, locations: locations.map(\.id))) }
        call.end(.ok)
    }

    var readers: [String] { told.withLock { $0 } }
    var watches: [Watch] { started.withLock { $0 } }
}
