import GatewayDomain
@testable import GatewayRegistry
import Testing

/// Registration codes shown by unregistered readers.
@Suite("Reader registry: registration codes")
struct ReaderRegistryRegistrationsTests {
    @Test func aCodeExpiresIsReplacedByAFreshOneAndIsTakenOnce() {
        var fixture = RegistryFixture()
        let link = fixture.registry.linkStarted()
        let expires = fixture.start + .seconds(600)
        fixture.registry.registrationCodeIssued("ABCD2345", replacing: nil, link: link, serial: "WSC-1", expires: expires)
        #expect(!fixture.registry.registrationExpired("ABCD2345", now: expires - .milliseconds(1)))
        #expect(fixture.registry.registrationExpired("ABCD2345", now: expires))
        fixture.registry.registrationCodeIssued("EFGH6789", replacing: "ABCD2345", link: link, serial: "WSC-1", expires: expires + .seconds(600))
        #expect(fixture.registry.registrationTaken("ABCD2345") == nil)
        #expect(!fixture.registry.registrationExpired("ABCD2345", now: expires))
        #expect(fixture.registry.registrationTaken("EFGH6789") == PendingRegistration(link: link, serial: "WSC-1", expires: expires + .seconds(600)))
        #expect(fixture.registry.registrationTaken("EFGH6789") == nil)
    }

    @Test func aWithdrawnCodeIsGone() {
        var fixture = RegistryFixture()
        let link = fixture.registry.linkStarted()
        fixture.registry.registrationCodeIssued("ABCD2345", replacing: nil, link: link, serial: "WSC-1", expires: fixture.start + .seconds(1))
        fixture.registry.registrationWithdrawn("ABCD2345")
        #expect(fixture.registry.registrations.isEmpty)
        #expect(fixture.registry.linkStarted() != link)
    }
}
