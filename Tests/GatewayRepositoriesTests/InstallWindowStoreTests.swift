import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayWire
import Testing

/// Locations' install windows (migration 0011) and the order of a Bluetooth reader's link
/// endings, in PostgreSQL.
@Suite("Install window and link ending store")
struct InstallWindowStoreTests {
    @Test func aWindowIsSetReplacedAndClearedPerLocationOfTheAccount() async throws {
        try await withOwnershipDatabase { client in
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_a", location: "tml_a")
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_b", location: "tml_b")
            let store = SoftwareUpdateStore(client: client)
            let night = try InstallWindow(startMinute: 120, endMinute: 300, utcOffsetMinutes: 60)
            #expect(try await store.setInstallWindow(night, location: "tml_a", account: "acct_a"))
            #expect(try await store.installWindows(account: "acct_a", locations: ["tml_a", "tml_b"]) == ["tml_a": night])
            // Another account's location: not found, nothing written, nothing read.
            #expect(try await !store.setInstallWindow(night, location: "tml_b", account: "acct_a"))
            #expect(try await store.installWindows(account: "acct_b", locations: ["tml_a", "tml_b"]).isEmpty)
            let spanning = try InstallWindow(startMinute: 1320, endMinute: 60, utcOffsetMinutes: -300)
            #expect(try await store.setInstallWindow(spanning, location: "tml_a", account: "acct_a"))
            #expect(try await store.installWindows(account: "acct_a", locations: ["tml_a"]) == ["tml_a": spanning])
            #expect(try await !store.setInstallWindow(nil, location: "tml_a", account: "acct_b"))
            #expect(try await store.installWindows(account: "acct_a", locations: ["tml_a"]) == ["tml_a": spanning])
            #expect(try await store.setInstallWindow(nil, location: "tml_a", account: "acct_a"))
            #expect(try await store.installWindows(account: "acct_a", locations: ["tml_a"]).isEmpty)
            #expect(try await store.setInstallWindow(nil, location: "tml_a", account: "acct_a"), "clearing no window is fine")
            // The table refuses what the domain type refuses.
            await #expect(throws: StoreError.self) {
                try await client.execute("INSERT INTO location_install_windows (location_id, start_minute, end_minute, utc_offset_minutes) VALUES ('tml_a', 60, 60, 0)")
            }
        }
    }

    @Test func linkEndingsAreListedByWhenTheyWereReceivedNotWhenRecorded() async throws {
        try await withOwnershipDatabase { client in
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_a", location: "tml_a")
            try await OwnershipSchemaFixtures.insertReader(client, id: "tmr_1", account: "acct_a", location: "tml_a")
            let store = BluetoothStore(client: client)
            let received = Date(timeIntervalSince1970: 1_900_000_000)
            // The later link's ending is recorded first (its serving task ran first).
            try await store.recordLinkEnding(reader: "tmr_1", reason: .securityReboot, reconnecting: true, at: received.addingTimeInterval(0.002))
            try await store.recordLinkEnding(reader: "tmr_1", reason: .rebootRequested, reconnecting: true, at: received)
            let endings = try await store.linkEndings(reader: "tmr_1", limit: 10)
            #expect(endings.map(\.reason) == [.securityReboot, .rebootRequested])
            #expect(endings.last.map { abs($0.at.timeIntervalSince(received)) < 0.000_01 } == true)
        }
    }
}
