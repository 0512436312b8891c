import GatewayDomain
import GatewayPostgres
import GatewayRepositories
@testable import GatewayService
import GatewayWire

/// Readers and locations, as `readers` and `locations` behave: another account's ids read as unknown ones.
extension InMemoryStore: ReaderRepository {
    func reader(_ id: String, account: String) async throws(StoreError) -> ReaderRecord? {
        try run { tables in tables.readers[id].flatMap { $0.accountID == account ? $0 : nil } }
    }

    func reader(serial: String) async throws(StoreError) -> ReaderRecord? {
        try run { tables in tables.readers.values.first { $0.serial == serial } }
    }

    func readers(serials: [String]) async throws(StoreError) -> [String: ReaderRecord] {
        try run { tables in
            let wanted = Set(serials)
            return Dictionary(tables.readers.values.filter { wanted.contains($0.serial) }.map { ($0.serial, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    func readers(account: String, location: String?) async throws(StoreError) -> [ReaderRecord] {
        try run { tables in
            tables.readers.values.filter { $0.accountID == account && (location == nil || $0.locationID == location) }.sorted { $0.id < $1.id }
        }
    }

    func location(_ id: String, account: String) async throws(StoreError) -> LocationRecord? {
        try run { tables in tables.locations[id].flatMap { $0.account == account ? $0.record : nil } }
    }

    func readerReported(_ id: String, softwareVersion: String, deviceType: ReaderGatewayV1.DeviceType) async throws(StoreError) {
        try run { tables in
            tables.readers[id]?.softwareVersion = softwareVersion
            if deviceType != .unspecified { tables.readers[id]?.deviceType = deviceType }
        }
    }
}

/// Where links live: no other replica here unless a test says so.
extension InMemoryStore: ReaderHomes {
    func readerHome(_ reader: ReaderID) async throws(StoreError) -> ReaderHome? {
        try run { tables in tables.homes[reader] }
    }
}
