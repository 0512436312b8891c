import GatewayDomain
import GatewayRegistry
@testable import GatewayService
import GatewayWire
import Synchronization
import Testing

/// Registering readers on the fleet admin surface: by the code a reader shows (single use,
/// handed to the link showing it, undone when nobody could take it) and by serial numbers
/// (all or nothing, labelled by a prefix).
@Suite("Local rules: reader registration")
struct FleetAdminRegistrationRuleTests {
    /// A reader's link on this replica showing `code` for `serial`: what it was handed, if anything.
    final class ShownCode: Sendable {
        let handed = Mutex<(reader: String, credential: String)?>(nil)

        init(_ local: LocalFleetAdmin, code: String, serial: String, node: String? = nil, link: UInt64 = 1) async throws {
            try await local.store.insertRegistrationCode(
                code, replacing: nil, serial: serial, deviceType: .bbposWiseposE, softwareVersion: "2.1.0",
                node: node ?? local.lanes.node.id, lifetime: .seconds(600)
            )
            local.lanes.registry.registrationCodeIssued(
                code, replacing: nil, link: LinkID(link), serial: serial, expires: local.lanes.clock.now + .seconds(600)
            ) { [self] record, credential in
                handed.withLock { $0 = (record.id, credential) }
                var reader = ReaderGatewayV1.Reader()
                reader.id = record.id
                reader.serialNumber = record.serial
                reader.label = record.label
                reader.networkStatus = .online
                return reader
            }
        }
    }

    func register(_ local: LocalFleetAdmin, code: String, location: String, label: String = "") async throws -> ReaderGatewayV1.RegisterReaderResponse {
        var request = ReaderGatewayV1.RegisterReaderRequest()
        request.registrationCode = code
        request.locationID = location
        request.label = label
        return try await local.call(local.admin.registerReader, request)
    }

    @Test func theLinkShowingTheCodeIsHandedTheNewReadersCredentialAndTheCodeIsUsedUp() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        let shown = try await ShownCode(local, code: "ABCD2345", serial: "WPE-1")
        let registered = try await register(local, code: "abcd-2345", location: location, label: "Till 1")
        #expect(registered.reader?.networkStatus == .online)
        #expect(registered.reader?.label == "Till 1")
        let id = try #require(registered.reader?.id)
        let handed = try #require(shown.handed.withLock { $0 })
        #expect(handed.reader == id)
        #expect(local.store.credential(of: id) == handed.credential)
        #expect(try await local.store.reader(id, account: LocalSDK.account)?.locationID == location)
        #expect(local.lanes.fleet.readers == [id])

        let again = await failure { try await register(local, code: "ABCD2345", location: location) }
        #expect(again?.reason == .registrationCodeInvalid)
        #expect(again?.message.contains("unknown, expired or already used") == true)
    }

    @Test func aCodeThatIsNotACodeIsRefusedAndTakesNoCode() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        _ = try await ShownCode(local, code: "ABCD2345", serial: "WPE-1")
        let short = await failure { try await register(local, code: "ABCD234", location: location) }
        #expect(short?.reason == .registrationCodeInvalid)
        #expect(short?.message.contains("not valid") == true)
        #expect(await failure { try await register(local, code: "ABCD234U", location: location) }?.reason == .registrationCodeInvalid)
        #expect(try await register(local, code: "ABCD2345", location: location).reader != nil)
    }

    @Test func aCodeNeedsALocationOfTheAccount() async throws {
        let local = LocalFleetAdmin()
        _ = try await ShownCode(local, code: "ABCD2345", serial: "WPE-1")
        let empty = await failure { try await register(local, code: "ABCD2345", location: "") }
        #expect(empty?.reason == .invalidRequest)
        #expect(empty?.message.contains("location_id is empty") == true)
        local.store.addLocation("tml_theirs", account: "acct_other")
        #expect(await failure { try await register(local, code: "ABCD2345", location: "tml_theirs") }?.reason == .locationNotFound)
        // Neither refusal took the code.
        #expect(try await register(local, code: "ABCD2345", location: try await local.createLocation()).reader != nil)
    }

    @Test func anExpiredCodeIsUnknown() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        _ = try await ShownCode(local, code: "ABCD2345", serial: "WPE-1")
        local.lanes.clock.advance(by: .seconds(601))
        #expect(await failure { try await register(local, code: "ABCD2345", location: location) }?.reason == .registrationCodeInvalid)
    }

    @Test func aCodeWhoseLinkWentAwayIsRefusedAndTheRegistrationUndone() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        // The row says this replica's link shows it, but no link here holds it any more.
        try await local.store.insertRegistrationCode(
            "ABCD2345", replacing: nil, serial: "WPE-1", deviceType: .bbposWiseposE, softwareVersion: "", node: local.lanes.node.id,
            lifetime: .seconds(600)
        )
        let error = await failure { try await register(local, code: "ABCD2345", location: location) }
        #expect(error?.reason == .registrationCodeInvalid)
        #expect(error?.message.contains("went offline") == true)
        #expect(try await local.store.reader(serial: "WPE-1") == nil)
    }

    @Test func aCodeShownOnAReplicaThatIsGoneIsRefusedAndUndone() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        _ = try await ShownCode(local, code: "ABCD2345", serial: "WPE-1", node: "replica-b-gone")
        #expect(await failure { try await register(local, code: "ABCD2345", location: location) }?.reason == .registrationCodeInvalid)
        #expect(try await local.store.reader(serial: "WPE-1") == nil)
    }

    @Test func aCodeForASerialAlreadyRegisteredIsRefused() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        local.store.addReader("tmr_old", account: "acct_other", location: nil, serial: "WPE-1")
        let shown = try await ShownCode(local, code: "ABCD2345", serial: "WPE-1")
        let error = await failure { try await register(local, code: "ABCD2345", location: location) }
        #expect(error?.reason == .readerAlreadyRegistered)
        #expect(error?.message.contains("WPE-1") == true)
        #expect(shown.handed.withLock { $0 } == nil)
    }

    func registerSerials(
        _ local: LocalFleetAdmin, _ serials: [String], location: String, prefix: String = ""
    ) async throws -> ReaderGatewayV1.RegisterReadersBySerialResponse {
        var request = ReaderGatewayV1.RegisterReadersBySerialRequest()
        request.serialNumbers = serials
        request.locationID = location
        request.labelPrefix = prefix
        request.deviceType = .stripeS700
        return try await local.call(local.admin.registerReadersBySerial, request)
    }

    @Test func serialsAreRegisteredOfflineLabelledByThePrefixInTheirOrder() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        let response = try await registerSerials(local, ["s7-a", "S7-B"], location: location, prefix: "Till")
        #expect(response.readers.map(\.serialNumber) == ["S7-A", "S7-B"])
        #expect(response.readers.map(\.label) == ["Till 1", "Till 2"])
        #expect(response.readers.allSatisfy { $0.networkStatus == .offline && $0.deviceType == .stripeS700 && $0.locationID == location })
        #expect(local.lanes.fleet.readers == response.readers.map(\.id))
    }

    @Test func oneSerialAlreadyRegisteredRegistersNone() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        local.store.addReader("tmr_old", account: "acct_other", location: nil, serial: "S7-B")
        let error = await failure { try await registerSerials(local, ["S7-A", "S7-B"], location: location) }
        #expect(error?.reason == .readerAlreadyRegistered)
        #expect(error?.message.contains("nothing was registered") == true)
        #expect(try await local.store.reader(serial: "S7-A") == nil)
    }

    @Test func aSerialListedTwiceOrNoneAtAllIsInvalid() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        let twice = await failure { try await registerSerials(local, ["S7-A", "s7-a"], location: location) }
        #expect(twice?.reason == .invalidRequest)
        #expect(twice?.message.contains("appears twice") == true)
        #expect(await failure { try await registerSerials(local, [], location: location) }?.reason == .invalidRequest)
        let noLocation = await failure { try await registerSerials(local, ["S7-A"], location: "") }
        #expect(noLocation?.message.contains("location_id is empty") == true)
        #expect(try await local.store.reader(serial: "S7-A") == nil)
    }
}
