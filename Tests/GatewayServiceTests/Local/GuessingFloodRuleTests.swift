import GatewayDomain
import GatewayOperations
@testable import GatewayService
import GatewayWire
import Testing

/// Failed authentications limited per source address and account on one replica with the
/// manual clock (the buckets in the in-memory table, the same arithmetic as PostgreSQL's):
/// a guessing flood from several addresses is locked out while the admin's calls from
/// another address all succeed; a locked address is refused even a correct key until its
/// retry-after; retired secrets of one account lock the account, not its current key.
@Suite("Local rules: guessing keys")
struct GuessingFloodRuleTests {
    static let admin = "192.0.2.1:40000"

    static func local() -> LocalFleetAdmin {
        LocalFleetAdmin { configuration in
            configuration.authFailuresPerSource = AuthFailureRule(burst: 5, refillPerSecond: 1)
            configuration.authFailuresPerAccount = AuthFailureRule(burst: 8, refillPerSecond: 1)
        }
    }

    @Test func aFloodFromTenAddressesIsLockedOutWhileTheAdminKeepsWorking() async throws {
        let local = Self.local()
        var refusedByAddress: [String: [ReaderGatewayV1.ErrorReason]] = [:]
        var adminCalls = 0
        for round in 0..<30 {
            for address in 2...11 {
                let peer = "127.0.0.\(address):\(50_000 + round)"
                let refused = await failure { try await local.call(local.admin.listReaders, .init(), key: "sk_guess_\(address)_\(round)", peer: peer) }
                refusedByAddress["127.0.0.\(address)", default: []].append(refused?.reason ?? .unspecified)
            }
            _ = try await local.call(local.admin.listReaders, .init(), peer: Self.admin)
            adminCalls += 1
        }
        #expect(adminCalls == 30)
        // Each address: its burst answered as wrong keys, the failure that found the bucket
        // empty and everything after it refused as rate limited.
        for (address, reasons) in refusedByAddress {
            #expect(reasons == Array(repeating: .secretKeyInvalid, count: 5) + Array(repeating: .authenticationRateLimited, count: 25), "\(address)")
        }
        let metrics = local.lanes.metrics.authentication
        // Only the failures that reached a lookup count as failures; the rest were refused unchecked.
        #expect(metrics.failures.labels(AuthSurface.fleetAdmin).value == 60)
        #expect(metrics.lockouts.labels(AuthLockoutScope.source).value == 10)
        #expect(metrics.limited.labels(AuthSurface.fleetAdmin).value == 250)
        #expect(local.store.tables.withLock { $0.authFailures.count } == 10)

        let refused = await failure { try await local.call(local.admin.listReaders, .init(), key: "sk_guess", peer: "127.0.0.2:1") }
        #expect(refused?.status.code == .resourceExhausted)
        #expect(refused?.message.contains("127.0.0.2") == true)
        #expect(refused?.message.contains("retry in 1000 ms") == true)
        #expect(refused?.status.retryAfterMs == 1000)
    }

    @Test func aLockedAddressIsRefusedEvenACorrectKeyUntilItsRetryAfter() async throws {
        let local = Self.local()
        let peer = "198.51.100.9:1234"
        for _ in 0..<6 { _ = await failure { try await local.call(local.admin.listLocations, .init(), key: "sk_wrong", peer: peer) } }
        #expect(await failure { try await local.call(local.admin.listLocations, .init(), peer: peer) }?.reason == .authenticationRateLimited)
        // Another port of the same address is the same source; an IPv6 /64 is one source too.
        #expect(await failure { try await local.call(local.admin.listLocations, .init(), peer: "198.51.100.9:999") }?.reason == .authenticationRateLimited)
        local.lanes.clock.advance(by: .milliseconds(999))
        #expect(await failure { try await local.call(local.admin.listLocations, .init(), peer: peer) }?.reason == .authenticationRateLimited)
        local.lanes.clock.advance(by: .milliseconds(1))
        _ = try await local.call(local.admin.listLocations, .init(), peer: peer)
        // One token came back: one more wrong key is answered as wrong, the next locks again.
        #expect(await failure { try await local.call(local.admin.listLocations, .init(), key: "sk_wrong", peer: peer) }?.reason == .secretKeyInvalid)
        #expect(await failure { try await local.call(local.admin.listLocations, .init(), key: "sk_wrong", peer: peer) }?.reason == .authenticationRateLimited)
    }

    @Test func retiredSecretsOfOneAccountFromManyAddressesLockTheAccountNotItsCurrentKey() async throws {
        let local = Self.local()
        let key = try #require(try await local.call(local.admin.listApiKeys, .init()).keys.first)
        var roll = ReaderGatewayV1.RollApiKeyRequest()
        roll.keyID = key.id
        roll.overlapMs = 1000
        let rolled = try await local.call(local.admin.rollApiKey, roll)
        local.lanes.clock.advance(by: .seconds(2))
        var reasons: [ReaderGatewayV1.ErrorReason] = []
        var lastMessage = ""
        for address in 1...10 {
            let refused = await failure { try await local.call(local.admin.listLocations, .init(), key: LocalFleetAdmin.secretKey, peer: "203.0.113.\(address):1") }
            reasons.append(refused?.reason ?? .unspecified)
            lastMessage = refused?.message ?? ""
        }
        #expect(reasons == Array(repeating: .secretKeyRetired, count: 8) + [.authenticationRateLimited, .authenticationRateLimited])
        #expect(lastMessage.contains("account \(LocalSDK.account)"))
        #expect(local.lanes.metrics.authentication.lockouts.labels(AuthLockoutScope.account).value == 1)
        _ = try await local.call(local.admin.listLocations, .init(), key: rolled.secret, peer: "203.0.113.10:2")
    }

    @Test func unknownConsoleSessionsCountAgainstTheirAddress() async throws {
        let local = Self.local()
        let peer = "192.0.2.77:5000"
        var reasons: [ReaderGatewayV1.ErrorReason] = []
        for attempt in 0..<7 {
            reasons.append(await failure { try await local.call(local.admin.listReaders, .init(), key: nil, console: ("cs_guess_\(attempt)", nil), peer: peer) }?.reason ?? .unspecified)
        }
        #expect(reasons == Array(repeating: .secretKeyInvalid, count: 5) + [.authenticationRateLimited, .authenticationRateLimited])
        #expect(local.lanes.metrics.authentication.failures.labels(AuthSurface.consoleSession).value == 6)
        // A call without any credential guesses nothing and is not counted.
        _ = await failure { try await local.call(local.admin.listReaders, .init(), key: nil, peer: "192.0.2.78:1") }
        #expect(local.lanes.metrics.authentication.failures.labels(AuthSurface.fleetAdmin).value == 0)
    }
}
