@testable import GatewayService
import GatewayWire
import Testing

/// ConnectTapToPayReader and CompleteTapToPayDeviceSetup with the stores in memory and a
/// manual clock: supported devices, the terms, accounts per device, the device's setup.
@Suite("Local rules: Tap to Pay")
struct TapToPayRuleTests {
    static func phone(model: String = "iPhone15,2", os: String = "17.4") -> ReaderGatewayV1.TapToPayDevice {
        var device = ReaderGatewayV1.TapToPayDevice()
        device.model = model
        device.osVersion = os
        return device
    }

    func connect(
        _ local: LocalSDK, _ token: String, device: ReaderGatewayV1.TapToPayDevice = phone(), location: String = "tml_a",
        onBehalfOf: String = "", acceptTerms: Bool = true
    ) async throws(ServiceError) -> ReaderGatewayV1.ConnectTapToPayReaderResponse {
        var request = ReaderGatewayV1.ConnectTapToPayReaderRequest()
        request.sessionToken = token
        request.device = device
        request.locationID = location
        request.onBehalfOf = onBehalfOf
        request.tosAcceptancePermitted = acceptTerms
        return try await local.sdk.mobile.connectTapToPayReader(request, local.context())
    }

    @Test func aPhoneTooOldForTapToPayIsRefusedNamingTheFirstModel() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        let token = try await local.openSession(device: "phone-1")
        let error = await failure { try await connect(local, token, device: Self.phone(model: "iPhone10,3")) }
        #expect(error?.reason == .tapToPayUnsupportedDevice)
        #expect(error?.message.contains("iPhone11,2") == true)
    }

    @Test func anOperatingSystemTooOldIsRefusedNamingTheMinimum() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        let token = try await local.openSession(device: "phone-1")
        let error = await failure { try await connect(local, token, device: Self.phone(os: "16.3")) }
        #expect(error?.reason == .tapToPayUnsupportedDevice)
        #expect(error?.message.contains("16.4") == true)
    }

    @Test func aTapToPayReaderNeedsALocation() async throws {
        let local = LocalSDK()
        let token = try await local.openSession(device: "phone-1")
        #expect(await failure { try await connect(local, token, location: "") }?.reason == .locationRequired)
    }

    @Test func termsNotAcceptedAndNotPermittedAreRefused() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        let token = try await local.openSession(device: "phone-1")
        #expect(await failure { try await connect(local, token, acceptTerms: false) }?.reason == .tapToPayReaderTosAcceptanceCanceled)
    }

    @Test func theTermsAreAcceptedOnceForTheAccount() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        let first = try await local.openSession(device: "phone-1")
        #expect(try await connect(local, first).termsAcceptedNow)
        let second = try await local.openSession(device: "phone-2")
        let again = try await connect(local, second, acceptTerms: false)
        #expect(!again.termsAcceptedNow)
    }

    @Test func aPhoneServesAtMostThreeAccountsInADay() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        let token = try await local.openSession(device: "phone-1")
        for (index, merchant) in ["m1", "m2", "m3"].enumerated() {
            #expect(try await connect(local, token, onBehalfOf: merchant).accountsInWindow == UInt32(index + 1))
        }
        let error = await failure { try await connect(local, token, onBehalfOf: "m4") }
        #expect(error?.reason == .tapToPayReaderMerchantBlocked)
        #expect(error?.message.contains("the limit is 3") == true)
        local.clock.advance(by: .seconds(24 * 3600))
        #expect(try await connect(local, token, onBehalfOf: "m4").reader?.deviceType == .tapToPay)
    }

    @Test func aPhoneNotSetUpIsToldToSetUpAndThenIsNot() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        let token = try await local.openSession(device: "phone-1")
        let setup = try #require(try await connect(local, token).deviceSetup)
        #expect(setup.required)
        #expect(setup.requiredAtUnixMs == local.clock.nowUnixMs)
        var complete = ReaderGatewayV1.CompleteTapToPayDeviceSetupRequest()
        complete.sessionToken = token
        complete.device = Self.phone()
        local.clock.advance(by: .seconds(30))
        #expect(try await local.sdk.mobile.completeTapToPayDeviceSetup(complete, local.context()).setUpUnixMs == local.clock.nowUnixMs)
        #expect(try await connect(local, token).deviceSetup == nil)
    }
}
