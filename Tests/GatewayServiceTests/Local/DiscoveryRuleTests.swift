import GatewayRepositories
@testable import GatewayService
import GatewayWire
import Testing

/// DiscoverReaders and CancelDiscovery with the stores in memory and a manual clock:
/// scope, rate limit, what a device may see, and what is kept with the session's row.
@Suite("Local rules: discovery")
struct DiscoveryRuleTests {
    @Test func aTokenLimitedToALocationCannotDiscoverAnother() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        local.location("tml_b", readers: [])
        let token = try await local.openSession(location: "tml_a")
        let error = await failure { try await local.discover(token, location: "tml_b") }
        #expect(error?.reason == .permissionDenied)
        #expect(error?.message.contains("limited to another location") == true)
    }

    @Test func aTokenLimitedToALocationDiscoversThereWhenNoneIsNamed() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_a"])
        local.location("tml_b", readers: ["tmr_b"])
        let token = try await local.openSession(location: "tml_a")
        #expect(try await local.discover(token).readers.map(\.id) == ["tmr_a"])
    }

    @Test func anUnknownLocationIsNotFound() async throws {
        let local = LocalSDK()
        let token = try await local.openSession()
        #expect(await failure { try await local.discover(token, location: "tml_nowhere") }?.reason == .locationNotFound)
    }

    @Test func anotherAccountsLocationReadsAsUnknown() async throws {
        let local = LocalSDK()
        local.store.addLocation("tml_theirs", account: "acct_other")
        let token = try await local.openSession()
        #expect(await failure { try await local.discover(token, location: "tml_theirs") }?.reason == .locationNotFound)
    }

    @Test func theBurstIsRefusedWithTheTimeToWait() async throws {
        let local = LocalSDK {
            $0.discoveryBurst = 3
            $0.discoveriesPerSecond = 1
        }
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession()
        for _ in 0..<3 { try await local.discover(token, location: "tml_a") }
        let error = await failure { try await local.discover(token, location: "tml_a") }
        #expect(error?.reason == .rateLimited)
        #expect(error?.message.contains("retry in 1000 ms") == true)
        #expect(error?.status.retryAfterMs == 1000)
    }

    @Test func theRateLimitRefillsAsTimePasses() async throws {
        let local = LocalSDK {
            $0.discoveryBurst = 2
            $0.discoveriesPerSecond = 2
        }
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession()
        for _ in 0..<2 { try await local.discover(token, location: "tml_a") }
        #expect(await failure { try await local.discover(token, location: "tml_a") }?.reason == .rateLimited)
        local.clock.advance(by: .milliseconds(500))
        #expect(try await local.discover(token, location: "tml_a").readers.count == 1)
        #expect(await failure { try await local.discover(token, location: "tml_a") }?.reason == .rateLimited)
    }

    @Test func theAnswerListsTheLocationsReadersOnly() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_2", "tmr_1"])
        local.location("tml_b", readers: ["tmr_3"])
        let token = try await local.openSession()
        let answer = try await local.discover(token, location: "tml_a")
        #expect(answer.readers.map(\.id) == ["tmr_1", "tmr_2"])
        #expect(answer.discoveryID == "disc_1")
    }

    @Test func aTapToPayReaderIsDiscoveredByItsOwnPhoneOnly() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        local.store.addReader("tmr_phone", account: LocalSDK.account, location: "tml_a", deviceType: .tapToPay, serial: TapToPayStore.serial(posDeviceID: "phone-1"))
        let own = try await local.openSession(device: "phone-1")
        let other = try await local.openSession(device: "pos-2")
        #expect(try await local.discover(own, location: "tml_a").readers.map(\.id) == ["tmr_1", "tmr_phone"])
        #expect(try await local.discover(other, location: "tml_a").readers.map(\.id) == ["tmr_1"])
    }

    @Test func aBluetoothReaderBondedToAnotherDeviceIsHidden() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        local.store.addReader("tmr_bt", account: LocalSDK.account, location: "tml_a", deviceType: .stripeM2)
        local.store.bond("tmr_bt", to: "pos-1")
        let bonded = try await local.openSession(device: "pos-1")
        let other = try await local.openSession(device: "pos-2")
        #expect(try await local.discover(bonded, location: "tml_a").readers.map(\.id) == ["tmr_bt"])
        #expect(try await local.discover(other, location: "tml_a").readers.isEmpty)
    }

    @Test func theAnswerIsKeptWithTheSessionsRow() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1", "tmr_2"])
        let token = try await local.openSession()
        try await local.discover(token, location: "tml_a")
        try await local.discover(token, location: "tml_a")
        let id = try #require(local.registry.session(token: token)?.id)
        let kept = try #require(local.store.sessionRow(id: id.rawValue)?.discovery)
        #expect(kept.answered == 2)
        #expect(kept.readers == ["tmr_1", "tmr_2"])
    }

    @Test func aCopyTheRowMovedPastAnswersNothing() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession(connection: 1)
        let id = try #require(local.registry.session(token: token)?.id)
        // Another replica adopted the row meanwhile: this copy's epoch is behind it.
        local.store.tables.withLock { tables in
            for key in tables.sessions.keys where tables.sessions[key]!.id == id.rawValue { tables.sessions[key]!.epoch += 1 }
        }
        #expect(await failure { try await local.discover(token, location: "tml_a") }?.reason == .sessionMoved)
        #expect(local.registry.session(token: token) == nil)
    }

    @Test func cancellingWithAnIDThisGatewayNeverIssuedIsInvalid() async throws {
        let local = LocalSDK()
        let token = try await local.openSession()
        var request = ReaderGatewayV1.CancelDiscoveryRequest()
        request.sessionToken = token
        request.discoveryID = "discovery-42"
        let error = await failure { try await local.sdk.discovery.cancelDiscovery(request, local.context()) }
        #expect(error?.reason == .invalidRequest)
        #expect(error?.message.contains("leave it empty") == true)
    }

    @Test func cancellingAnAnsweredDiscoveryLeavesItsReadersConnectable() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: ["tmr_1"])
        let token = try await local.openSession()
        let answer = try await local.discover(token, location: "tml_a")
        var request = ReaderGatewayV1.CancelDiscoveryRequest()
        request.sessionToken = token
        request.discoveryID = answer.discoveryID
        _ = try await local.sdk.discovery.cancelDiscovery(request, local.context())
        #expect(try await local.connect(token, reader: "tmr_1").reader?.id == "tmr_1")
    }
}

