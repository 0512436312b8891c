import GatewayDomain
@testable import GatewayRegistry
import GatewayWire
import Testing

/// The registry's part in software updates: the version a reader reports after an install,
/// update events for the owner here, and which connected readers hear of a catalog change.
@Suite("ReaderRegistry: software updates")
struct ReaderRegistrySoftwareUpdatesTests {
    @Test func aNewVersionOnTheCurrentLinkChangesTheStatusOnce() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        func report(_ link: LinkID, _ version: String) -> Bool {
            fixture.registry.softwareVersionReported(fixture.reader, link: link, version: version)
        }
        #expect(!report(LinkID(link.rawValue + 1), "2.2"), "a link that is not the reader's current one")
        #expect(!report(link, "2.1"), "the version it attached with")
        #expect(!report(link, ""), "not reported")
        #expect(report(link, "2.2"))
        #expect(fixture.registry.linkStatus(of: fixture.reader)?.softwareVersion == "2.2")
        #expect(!report(link, "2.2"))
    }

    @Test func updateEventsReachTheOwnerHereOnly() {
        var fixture = RegistryFixture()
        fixture.attach()
        var available = ReaderGatewayV1.UpdateAvailable()
        available.readerID = fixture.reader.rawValue
        let unowned = fixture.registry.softwareUpdateEvent(fixture.reader, .updateAvailable(available), nowUnixMs: 1)
        #expect(unowned == nil)
        fixture.open("A")
        let stream = fixture.subscribe("A").stream
        fixture.claim("A", generation: 1)
        guard case .sendEvent(let event, stream)? = fixture.registry.softwareUpdateEvent(fixture.reader, .updateAvailable(available), nowUnixMs: 2),
              case .updateAvailable(let sent)? = event.message.event
        else { Issue.record("no update event for the owner"); return }
        #expect(sent.readerID == fixture.reader.rawValue)
    }

    @Test func aCatalogChangeConcernsIdleOwnedReadersOfTheAccountAndDeviceType() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        #expect(fixture.registry.idleOwnedReaders(account: "acct_1", deviceType: .unspecified).isEmpty, "no owner yet")
        fixture.open("A")
        fixture.claim("A", generation: 1)
        #expect(fixture.registry.idleOwnedReaders(account: "acct_1", deviceType: .unspecified).map(\.reader) == [fixture.reader])
        #expect(fixture.registry.idleOwnedReaders(account: "acct_2", deviceType: .unspecified).isEmpty)
        #expect(fixture.registry.idleOwnedReaders(account: "acct_1", deviceType: .mobile).isEmpty)
        _ = fixture.registry.heartbeat(
            fixture.reader, link: link, activity: .collecting, batteryLevel: 0.8, ipAddress: "", now: fixture.start, nowUnixMs: 3
        )
        #expect(fixture.registry.idleOwnedReaders(account: "acct_1", deviceType: .unspecified).isEmpty, "a reader in a payment hears later")
    }
}
