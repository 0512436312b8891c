import Foundation
import GatewayPostgres
import GatewayRepositories
import GatewayWire
import Testing

/// The software update rows in PostgreSQL: the catalog per account and device type, and what
/// the rules remember per reader (ran the latest at, per location; the battery).
@Suite("Software update store")
struct SoftwareUpdateStoreTests {
    static func update(_ version: String, requiredAt: Int64 = 0, components: [String] = []) -> ReaderGatewayV1.ReaderSoftwareUpdate {
        var update = ReaderGatewayV1.ReaderSoftwareUpdate()
        update.deviceType = .mobile
        update.version = version
        update.components = components
        update.durationEstimate = .twoToFiveMinutes
        update.requiredAtUnixMs = requiredAt
        return update
    }

    @Test func catalogIsPerAccountOrderedNewestFirstAndReplacedByVersion() async throws {
        try await withOwnershipDatabase { client in
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_a", location: "tml_a")
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_b", location: "tml_b")
            let store = SoftwareUpdateStore(client: client)
            #expect(try await !store.add(Self.update("2.9.0", components: ["firmware"]), account: "acct_a"))
            #expect(try await !store.add(Self.update("2.10.0", requiredAt: 1_900_000_000_123), account: "acct_a"))
            var smart = Self.update("1.0")
            smart.deviceType = .simulatedWiseposE
            #expect(try await !store.add(smart, account: "acct_a"))
            let mobile = try await store.catalog(account: "acct_a", deviceType: .mobile)
            #expect(mobile.map(\.version) == ["2.10.0", "2.9.0"], "number by number, not as text")
            #expect(mobile.first?.requiredAtUnixMs == 1_900_000_000_123)
            #expect(mobile.first?.durationEstimate == .twoToFiveMinutes)
            #expect(mobile.last?.components == ["firmware"])
            #expect(mobile.last?.requiredAtUnixMs == 0)
            #expect(try await store.catalog(account: "acct_a").count == 3)
            #expect(try await store.catalog(account: "acct_b").isEmpty)
            // Same version again: replaced, components and required_at included.
            #expect(try await store.add(Self.update("2.9.0", requiredAt: 5, components: ["keys", "config"]), account: "acct_a"))
            let replaced = try await store.catalog(account: "acct_a", deviceType: .mobile).last
            #expect(replaced?.components == ["keys", "config"])
            #expect(replaced?.requiredAtUnixMs == 5)
            #expect(try await !store.remove(deviceType: .mobile, version: "2.9.0", account: "acct_b"))
            #expect(try await store.remove(deviceType: .mobile, version: "2.9.0", account: "acct_a"))
            #expect(try await store.catalog(account: "acct_a", deviceType: .mobile).map(\.version) == ["2.10.0"])
        }
    }

    @Test func ranLatestIsPerLocationAndBatteryIsKeptPerReader() async throws {
        try await withOwnershipDatabase { client in
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_a", location: "tml_a")
            try await client.execute("INSERT INTO locations (id, account_id, display_name) VALUES ('tml_other', 'acct_a', 'other')")
            try await OwnershipSchemaFixtures.insertReader(client, id: "tmr_1", account: "acct_a", location: "tml_a")
            try await OwnershipSchemaFixtures.insertReader(client, id: "tmr_2", account: "acct_a", location: "tml_a")
            let store = SoftwareUpdateStore(client: client)
            #expect(try await store.ranLatestAt(reader: "tmr_1", location: "tml_a") == nil)
            try await store.recordRanLatest(reader: "tmr_1", location: "tml_a", atMs: 1_900_000_000_000)
            #expect(try await store.ranLatestAt(reader: "tmr_1", location: "tml_a") == 1_900_000_000_000)
            #expect(try await store.ranLatestAt(reader: "tmr_1", location: "tml_other") == nil, "another location's latest is another matter")
            try await store.recordBattery(reader: "tmr_1", level: 0.5)
            try await store.recordBattery(reader: "tmr_2", level: nil)
            // Recording the battery keeps the ran-latest date.
            #expect(try await store.ranLatestAt(reader: "tmr_1", location: "tml_a") == 1_900_000_000_000)
            #expect(try await store.batteryLevels(readers: ["tmr_1", "tmr_2", "tmr_3"]) == ["tmr_1": 0.5])
            #expect(try await store.batteryLevels(readers: []).isEmpty)
        }
    }
}
