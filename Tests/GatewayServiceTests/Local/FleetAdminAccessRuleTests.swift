import GatewayDomain
@testable import GatewayService
import GatewayWire
import Testing

/// Who a fleet admin call acts for, and what it may see: the secret key or the console
/// session (with its CSRF token for changes), and every id read within that account only.
@Suite("Local rules: fleet admin access")
struct FleetAdminAccessRuleTests {
    @Test func aCallWithoutAKeyOrAnUnknownKeyIsRefused() async throws {
        let local = LocalFleetAdmin()
        let request = ReaderGatewayV1.ListLocationsRequest()
        #expect(await failure { try await local.call(local.admin.listLocations, request, key: nil) }?.reason == .secretKeyInvalid)
        #expect(await failure { try await local.call(local.admin.listLocations, request, key: "sk_nobody") }?.reason == .secretKeyInvalid)
        #expect(await failure { try await local.call(local.admin.listLocations, request, key: "  ") }?.reason == .secretKeyInvalid)
    }

    @Test func aConsoleSessionReadsWithoutItsCSRFTokenButChangesNothingWithoutIt() async throws {
        let local = LocalFleetAdmin()
        local.store.addConsoleSession(token: "cs_1", account: LocalSDK.account, csrfToken: "csrf_1")
        _ = try await local.createLocation("Kept")
        let list = ReaderGatewayV1.FleetAdmin.listLocations.path
        let listed = try await local.call(
            local.admin.listLocations, ReaderGatewayV1.ListLocationsRequest(), key: nil, console: ("cs_1", nil), method: list
        )
        #expect(listed.locations.map(\.displayName) == ["Kept"])

        var create = ReaderGatewayV1.CreateLocationRequest()
        create.displayName = "New"
        let path = ReaderGatewayV1.FleetAdmin.createLocation.path
        let refused = await failure { try await local.call(local.admin.createLocation, create, key: nil, console: ("cs_1", "wrong"), method: path) }
        #expect(refused?.reason == .permissionDenied)
        #expect(refused?.message.contains("x-csrf-token") == true)
        let created = try await local.call(local.admin.createLocation, create, key: nil, console: ("cs_1", "csrf_1"), method: path)
        #expect(created.location?.displayName == "New")
    }

    @Test func anExpiredConsoleSessionIsUnknown() async throws {
        let local = LocalFleetAdmin()
        local.store.addConsoleSession(token: "cs_1", account: LocalSDK.account, csrfToken: "csrf_1", lifetime: .seconds(60))
        local.lanes.clock.advance(by: .seconds(61))
        let path = ReaderGatewayV1.FleetAdmin.listLocations.path
        let error = await failure {
            try await local.call(local.admin.listLocations, ReaderGatewayV1.ListLocationsRequest(), key: nil, console: ("cs_1", nil), method: path)
        }
        #expect(error?.reason == .secretKeyInvalid)
        #expect(error?.message.contains("sign in again") == true)
    }

    @Test func anotherAccountsReaderIsNotFoundAndAnEmptyIDIsInvalid() async throws {
        let local = LocalFleetAdmin()
        local.store.addReader("tmr_theirs", account: "acct_other", location: nil)
        var request = ReaderGatewayV1.GetReaderRequest()
        request.readerID = "tmr_theirs"
        #expect(await failure { try await local.call(local.admin.getReader, request) }?.reason == .readerNotFound)
        var release = ReaderGatewayV1.ForceReleaseReaderRequest()
        release.readerID = "tmr_theirs"
        #expect(await failure { try await local.call(local.admin.forceReleaseReader, release) }?.reason == .readerNotFound)
        request.readerID = ""
        let empty = await failure { try await local.call(local.admin.getReader, request) }
        #expect(empty?.reason == .invalidRequest)
        #expect(empty?.message.contains("reader_id is empty") == true)
    }

    @Test func anotherAccountsLocationIsNotFoundWhereverItIsNamed() async throws {
        let local = LocalFleetAdmin()
        local.store.addLocation("tml_theirs", account: "acct_other")
        var readers = ReaderGatewayV1.ListReadersRequest()
        readers.locationID = "tml_theirs"
        #expect(await failure { try await local.call(local.admin.listReaders, readers) }?.reason == .locationNotFound)
        var token = ReaderGatewayV1.CreateConnectionTokenRequest()
        token.locationID = "tml_theirs"
        #expect(await failure { try await local.call(local.admin.createConnectionToken, token) }?.reason == .locationNotFound)
        var update = ReaderGatewayV1.UpdateLocationRequest()
        update.locationID = "tml_theirs"
        update.displayName = "Mine now"
        #expect(await failure { try await local.call(local.admin.updateLocation, update) }?.reason == .locationNotFound)
        #expect(try await local.store.location("tml_theirs", account: "acct_other")?.displayName == "Location tml_theirs")
    }

    @Test func aBlankLocationNameIsRefusedAndNothingIsCreated() async throws {
        let local = LocalFleetAdmin()
        var request = ReaderGatewayV1.CreateLocationRequest()
        request.displayName = "   "
        let error = await failure { try await local.call(local.admin.createLocation, request) }
        #expect(error?.reason == .invalidRequest)
        #expect(try await local.store.locations(account: LocalSDK.account, after: nil, limit: 10).isEmpty)
    }

    @Test func locationsArePagedInIDOrderWithTheLastIDAsThePageToken() async throws {
        let local = LocalFleetAdmin()
        for name in ["A", "B", "C"] { _ = try await local.createLocation(name) }
        let ids = try await local.store.locations(account: LocalSDK.account, after: nil, limit: 10).map(\.id)
        var request = ReaderGatewayV1.ListLocationsRequest()
        request.limit = 2
        let first = try await local.call(local.admin.listLocations, request)
        #expect(first.locations.map(\.id) == Array(ids.prefix(2)))
        #expect(first.nextPageToken == ids[1])
        request.pageToken = first.nextPageToken
        let second = try await local.call(local.admin.listLocations, request)
        #expect(second.locations.map(\.id) == [ids[2]])
        #expect(second.nextPageToken.isEmpty)
    }

    @Test func settingAndClearingAnInstallWindowTogetherIsRefusedBeforeAnythingIsWritten() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation("Before")
        var request = ReaderGatewayV1.UpdateLocationRequest()
        request.locationID = location
        request.displayName = "After"
        var window = ReaderGatewayV1.InstallWindow()
        window.startMinute = 60
        window.endMinute = 120
        request.installWindow = window
        request.clearInstallWindow = true
        let error = await failure { try await local.call(local.admin.updateLocation, request) }
        #expect(error?.reason == .invalidRequest)
        #expect(error?.message.contains("both given") == true)
        #expect(try await local.store.location(location, account: LocalSDK.account)?.displayName == "Before")
    }

    @Test func aConnectionTokenLivesTheDefaultTimeOrAtMostTheMaximumAndOpensASession() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        let now = local.lanes.clock.nowUnixMs
        var request = ReaderGatewayV1.CreateConnectionTokenRequest()
        request.locationID = location
        let standard = try await local.call(local.admin.createConnectionToken, request)
        #expect(standard.expiresUnixMs == now + 600_000)
        #expect(standard.locationID == location)
        request.ttlMs = 7 * 86_400_000
        #expect(try await local.call(local.admin.createConnectionToken, request).expiresUnixMs == now + 86_400_000)
        request.ttlMs = -1
        #expect(await failure { try await local.call(local.admin.createConnectionToken, request) }?.reason == .invalidRequest)

        // The lane's OpenSession accepts the token, limited to its location.
        var open = ReaderGatewayV1.OpenSessionRequest()
        open.connectionToken = standard.secret
        open.posDeviceID = "pos-9"
        let session = try await local.lanes.sdk.sessions.openSession(open, local.lanes.context())
        var discover = ReaderGatewayV1.DiscoverReadersRequest()
        discover.sessionToken = session.sessionToken
        discover.locationID = try await local.createLocation("Elsewhere")
        #expect(await failure { try await local.lanes.sdk.discovery.discoverReaders(discover, local.lanes.context()) }?.reason == .permissionDenied)
    }
}
