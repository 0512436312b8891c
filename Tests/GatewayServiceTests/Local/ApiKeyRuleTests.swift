import Foundation
import GatewayRepositories
@testable import GatewayService
import GatewayWire
import Testing

/// Scoped keys on one replica with the manual clock: a roll's overlap and what the old secret
/// is refused with after it, revocation and expiry, location limits (another location's ids
/// read as unknown), and what a key may grant or manage.
@Suite("Local rules: secret keys")
struct ApiKeyRuleTests {
    static let readOnly = KeyPermissions(Dictionary(uniqueKeysWithValues: KeyResource.allCases.map { ($0, .read) }))

    @Test func aRolledSecretWorksUntilItsOverlapEndsThenIsRefusedSayingItWasRolled() async throws {
        let local = LocalFleetAdmin()
        let keys = try await local.call(local.admin.listApiKeys, ReaderGatewayV1.ListApiKeysRequest())
        let accountKey = try #require(keys.keys.first)
        var roll = ReaderGatewayV1.RollApiKeyRequest()
        roll.keyID = accountKey.id
        roll.overlapMs = 3_600_000
        let rolled = try await local.call(local.admin.rollApiKey, roll)
        #expect(rolled.secret.hasPrefix("sk_") && rolled.secret != LocalFleetAdmin.secretKey)
        #expect(rolled.key?.previousSecretExpiresUnixMs == local.lanes.clock.nowUnixMs + 3_600_000)

        // Both secrets work through the overlap.
        local.lanes.clock.advance(by: .seconds(3599))
        _ = try await local.call(local.admin.listLocations, .init(), key: LocalFleetAdmin.secretKey)
        _ = try await local.call(local.admin.listLocations, .init(), key: rolled.secret)

        // Then only the new one; the old is refused with the reason.
        local.lanes.clock.advance(by: .seconds(1))
        let refused = await failure { try await local.call(local.admin.listLocations, .init(), key: LocalFleetAdmin.secretKey) }
        #expect(refused?.reason == .secretKeyRetired)
        #expect(refused?.status.code == .unauthenticated)
        #expect(refused?.message.contains("was rolled") == true)
        #expect(refused?.message.contains("overlap ended") == true)
        _ = try await local.call(local.admin.listLocations, .init(), key: rolled.secret)
    }

    @Test func aRollWithoutAnOverlapKeepsTheOldSecretADayAndRefusesMoreThanSevenDays() async throws {
        let local = LocalFleetAdmin()
        let key = try #require(try await local.call(local.admin.listApiKeys, .init()).keys.first)
        var roll = ReaderGatewayV1.RollApiKeyRequest()
        roll.keyID = key.id
        roll.overlapMs = 7 * 24 * 3_600_000 + 1
        let tooLong = await failure { try await local.call(local.admin.rollApiKey, roll) }
        #expect(tooLong?.reason == .invalidRequest)
        #expect(tooLong?.message.contains("7 days") == true)

        roll.overlapMs = 0
        let rolled = try await local.call(local.admin.rollApiKey, roll)
        #expect(rolled.key?.previousSecretExpiresUnixMs == local.lanes.clock.nowUnixMs + 24 * 3_600_000)
        local.lanes.clock.advance(by: .seconds(24 * 3600 - 1))
        _ = try await local.call(local.admin.listLocations, .init())
        local.lanes.clock.advance(by: .seconds(1))
        #expect(await failure { try await local.call(local.admin.listLocations, .init()) }?.reason == .secretKeyRetired)
    }

    @Test func aRevokedKeyAndAnExpiredKeyAreRefusedWithTheirReasons() async throws {
        let local = LocalFleetAdmin()
        var create = ReaderGatewayV1.CreateApiKeyRequest()
        create.name = "wall dashboard"
        create.permissions = FleetAdminService.permissionsMessage(Self.readOnly)
        create.expiresUnixMs = local.lanes.clock.nowUnixMs + 60_000
        let expiring = try await local.call(local.admin.createApiKey, create)
        create.expiresUnixMs = 0
        let revoked = try await local.call(local.admin.createApiKey, create)
        _ = try await local.call(local.admin.listLocations, .init(), key: expiring.secret)

        var revoke = ReaderGatewayV1.RevokeApiKeyRequest()
        revoke.keyID = revoked.key?.id ?? ""
        #expect(try await local.call(local.admin.revokeApiKey, revoke).key?.revokedUnixMs == local.lanes.clock.nowUnixMs)
        let refused = await failure { try await local.call(local.admin.listLocations, .init(), key: revoked.secret) }
        #expect(refused?.reason == .secretKeyRetired)
        #expect(refused?.message.contains("was revoked") == true)

        local.lanes.clock.advance(by: .seconds(60))
        let expired = await failure { try await local.call(local.admin.listLocations, .init(), key: expiring.secret) }
        #expect(expired?.reason == .secretKeyRetired)
        #expect(expired?.message.contains("expired") == true)
    }

    @Test func aConsoleSessionOfARevokedKeyEnds() async throws {
        let local = LocalFleetAdmin()
        let key = local.store.addKey("sk_console", account: LocalSDK.account, name: "console", permissions: Self.readOnly, locations: nil)
        local.store.addConsoleSession(token: "cs_1", account: LocalSDK.account, csrfToken: "csrf_1", keyID: key)
        let path = ReaderGatewayV1.FleetAdmin.listLocations.path
        _ = try await local.call(local.admin.listLocations, .init(), key: nil, console: ("cs_1", nil), method: path)
        var create = ReaderGatewayV1.CreateLocationRequest()
        create.displayName = "Not with a read-only key"
        let denied = await failure {
            try await local.call(local.admin.createLocation, create, key: nil, console: ("cs_1", "csrf_1"), method: ReaderGatewayV1.FleetAdmin.createLocation.path)
        }
        #expect(denied?.reason == .permissionDenied)
        #expect(denied?.message.contains("locations:write") == true)

        var revoke = ReaderGatewayV1.RevokeApiKeyRequest()
        revoke.keyID = key
        _ = try await local.call(local.admin.revokeApiKey, revoke)
        let ended = await failure { try await local.call(local.admin.listLocations, .init(), key: nil, console: ("cs_1", nil), method: path) }
        #expect(ended?.reason == .secretKeyInvalid)
    }

    @Test func aKeyLimitedToOneLocationSeesNothingOfAnother() async throws {
        let local = LocalFleetAdmin()
        let mine = try await local.createLocation("Mine")
        let other = try await local.createLocation("Other")
        local.store.addReader("tmr_mine", account: LocalSDK.account, location: mine)
        local.store.addReader("tmr_other", account: LocalSDK.account, location: other)
        var all = KeyPermissions.all
        all[.keys] = .none
        local.store.addKey("sk_store", account: LocalSDK.account, name: "store", permissions: all, locations: [mine])

        #expect(try await local.call(local.admin.listLocations, .init(), key: "sk_store").locations.map(\.id) == [mine])
        #expect(try await local.call(local.admin.listReaders, .init(), key: "sk_store").readers.map(\.id) == ["tmr_mine"])
        #expect(try await local.call(local.admin.listReaderOwnership, .init(), key: "sk_store").ownerships.map(\.readerID) == ["tmr_mine"])
        var readers = ReaderGatewayV1.ListReadersRequest()
        readers.locationID = other
        #expect(await failure { try await local.call(local.admin.listReaders, readers, key: "sk_store") }?.reason == .locationNotFound)
        var get = ReaderGatewayV1.GetReaderRequest()
        get.readerID = "tmr_other"
        #expect(await failure { try await local.call(local.admin.getReader, get, key: "sk_store") }?.reason == .readerNotFound)
        var history = ReaderGatewayV1.ListOwnershipHistoryRequest()
        history.readerID = "tmr_other"
        #expect(await failure { try await local.call(local.admin.listOwnershipHistory, history, key: "sk_store") }?.reason == .readerNotFound)
        var release = ReaderGatewayV1.ForceReleaseReaderRequest()
        release.readerID = "tmr_other"
        #expect(await failure { try await local.call(local.admin.forceReleaseReader, release, key: "sk_store") }?.reason == .readerNotFound)
        var delete = ReaderGatewayV1.DeleteReaderRequest()
        delete.readerID = "tmr_other"
        #expect(await failure { try await local.call(local.admin.deleteReader, delete, key: "sk_store") }?.reason == .readerNotFound)
        var rename = ReaderGatewayV1.UpdateLocationRequest()
        rename.locationID = other
        rename.displayName = "Taken"
        #expect(await failure { try await local.call(local.admin.updateLocation, rename, key: "sk_store") }?.reason == .locationNotFound)

        // Across locations: refused, naming the limit.
        var create = ReaderGatewayV1.CreateLocationRequest()
        create.displayName = "Third"
        let wide = await failure { try await local.call(local.admin.createLocation, create, key: "sk_store") }
        #expect(wide?.reason == .permissionDenied)
        #expect(wide?.message.contains("limited to \(mine)") == true)
    }

    @Test func aLocationLimitedKeysSessionsAndTokensStayInItsLocation() async throws {
        let local = LocalFleetAdmin()
        let mine = try await local.createLocation("Mine")
        let other = try await local.createLocation("Other")
        local.store.addKey("sk_store", account: LocalSDK.account, name: "store", permissions: .all, locations: [mine])
        _ = try await local.lanes.openSession(device: "pos-mine", location: mine)
        _ = try await local.lanes.openSession(device: "pos-other", location: other)
        _ = try await local.lanes.openSession(device: "pos-account")
        #expect(try await local.call(local.admin.listSessions, .init(), key: "sk_store").sessions.map(\.posDeviceID) == ["pos-mine"])
        #expect(try await local.call(local.admin.listSessions, .init()).sessions.count == 3)

        // A token minted without a location is limited to the key's one location.
        let token = try await local.call(local.admin.createConnectionToken, .init(), key: "sk_store")
        #expect(token.locationID == mine)
        var elsewhere = ReaderGatewayV1.CreateConnectionTokenRequest()
        elsewhere.locationID = other
        #expect(await failure { try await local.call(local.admin.createConnectionToken, elsewhere, key: "sk_store") }?.reason == .locationNotFound)

        // With two locations, the key must name one.
        local.store.addKey("sk_two", account: LocalSDK.account, name: "two", permissions: .all, locations: [mine, other])
        let unnamed = await failure { try await local.call(local.admin.createConnectionToken, .init(), key: "sk_two") }
        #expect(unnamed?.reason == .invalidRequest)
        #expect(unnamed?.message.contains("name one of them") == true)
    }

    @Test func aKeyGrantsAndManagesOnlyWhatItHolds() async throws {
        let local = LocalFleetAdmin()
        let mine = try await local.createLocation("Mine")
        var manager = Self.readOnly
        manager[.keys] = .write
        local.store.addKey("sk_manager", account: LocalSDK.account, name: "manager", permissions: manager, locations: [mine])

        var create = ReaderGatewayV1.CreateApiKeyRequest()
        create.name = "too much"
        var wanted = Self.readOnly
        wanted[.readers] = .write
        create.permissions = FleetAdminService.permissionsMessage(wanted)
        let escalation = await failure { try await local.call(local.admin.createApiKey, create, key: "sk_manager") }
        #expect(escalation?.reason == .permissionDenied)
        #expect(escalation?.message.contains("readers:write") == true)

        // A key it creates inherits its location limit; it lists only keys within its reach.
        create.name = "dashboard"
        create.permissions = FleetAdminService.permissionsMessage(Self.readOnly)
        let created = try await local.call(local.admin.createApiKey, create, key: "sk_manager")
        #expect(created.key?.locationIDs == [mine])
        // (Both were created at the same manual-clock instant: their order is by id.)
        let listed = try await local.call(local.admin.listApiKeys, .init(), key: "sk_manager").keys.map(\.name)
        #expect(Set(listed) == ["manager", "dashboard"] && listed.count == 2)

        // The account key is out of its reach: rolling it (which would hand over its secret) is refused.
        let accountKey = try #require(try await local.call(local.admin.listApiKeys, .init()).keys.first { $0.name == "account key" })
        var roll = ReaderGatewayV1.RollApiKeyRequest()
        roll.keyID = accountKey.id
        #expect(await failure { try await local.call(local.admin.rollApiKey, roll, key: "sk_manager") }?.reason == .apiKeyNotFound)
    }
}
