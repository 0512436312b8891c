import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import Testing

/// What each device was set up for, in PostgreSQL (migration 13).
@Suite("Tap to Pay device setup store")
struct TapToPayDeviceSetupStoreTests {
    @Test("a device's setup is recorded, read back, replaced by a newer one, and kept apart from other devices'")
    func recordAndRead() async throws {
        try await withOwnershipDatabase { client in
            let store = TapToPayStore(client: client)
            let phone = TapToPayDeviceSetupRule.Setup(model: "iPhone15,2", osVersion: "17.4")
            #expect(try await store.deviceSetup(device: "phone-1") == nil)
            let first = try await store.recordDeviceSetup(device: "phone-1", phone)
            #expect(first > 0)
            #expect(try await store.deviceSetup(device: "phone-1") == phone)
            #expect(try await store.deviceSetup(device: "phone-2") == nil)
            let updated = TapToPayDeviceSetupRule.Setup(model: "iPhone15,2", osVersion: "17.5")
            let second = try await store.recordDeviceSetup(device: "phone-1", updated)
            #expect(second >= first)
            #expect(try await store.deviceSetup(device: "phone-1") == updated)
            #expect(TapToPayDeviceSetupRule.setupNeeded(recorded: try await store.deviceSetup(device: "phone-1"), device: updated) == nil)
        }
    }
}
