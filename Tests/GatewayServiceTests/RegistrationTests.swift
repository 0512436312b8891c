import GatewayWire
import Testing

/// Registering readers: by the code an unregistered reader shows, and by
/// serial numbers proven with a reader-CA client certificate.
@Suite("reader registration")
struct RegistrationTests {
    @Test func registrationCodeFlow() async throws {
        let harness = try await GatewayHarness.start()
        let admin = try await harness.admin()
        let location = try await admin.createLocation("Pop-up")
        let reader = try await TestReader.attach(harness, serial: "WSC5000001")
        let code = try #require(await reader.waitForCode(), "no registration code: \(String(describing: reader.endStatus))")
        #expect(code.count == 9 && code.contains("-"))

        // The admin types it in lower case; the reader is told at once.
        let registered = try await admin.registerCode(code.lowercased(), label: "Pop-up till", location: location)
        #expect(registered.label == "Pop-up till")
        #expect(registered.serialNumber == "WSC5000001")
        let state = try #require(await reader.waitUntilRegistered())
        #expect(state.readerID == registered.id)
        #expect(state.locationID == location)
        let credential = state.readerCredential
        #expect(credential.hasPrefix("rcr_"))

        // Single use: the same code again is refused.
        await expectFailure(.registrationCodeInvalid) { try await admin.registerCode(code, label: "again", location: location) }
        await expectFailure(.registrationCodeInvalid) { try await admin.registerCode("0000-0000", label: "x", location: location) }

        // From then on the reader attaches with its credential; a wrong one is refused.
        reader.disconnect()
        let back = try await TestReader.attach(harness, serial: "WSC5000001", credential: credential)
        #expect(await back.waitUntilRegistered()?.readerID == registered.id)
        #expect(await back.waitUntilRegistered()?.readerCredential == "")
        let forged = try await TestReader.attach(harness, serial: "WSC5000001", credential: "rcr_forged")
        #expect(await forged.waitUntilEnded()?.reason == .readerCredentialInvalid)
        // Without credential or certificate, the registered serial is not enough.
        let claimed = try await TestReader.attach(harness, serial: "WSC5000001")
        #expect(await claimed.waitUntilEnded()?.reason == .serialNotProven)
        await harness.stop()
    }

    @Test func bulkSerialRegistrationWithLabelPrefixAndMutualTLS() async throws {
        let harness = try await GatewayHarness.start()
        let admin = try await harness.admin()
        let location = try await admin.createLocation("Warehouse")
        let serials = ["WSC1000001", "WSC1000002", "WSC1000003"]
        let readers = try await admin.registerSerials(serials, prefix: "Prefix", location: location)
        #expect(readers.map(\.label) == ["Prefix 1", "Prefix 2", "Prefix 3"])
        #expect(readers.map(\.serialNumber) == serials)
        // Registering one of them again fails and registers nothing.
        await expectFailure(.readerAlreadyRegistered) { try await admin.registerSerials(["WSC1000009", "WSC1000002"], prefix: "Dup", location: location) }
        var list = ReaderGatewayV1.ListReadersRequest()
        list.locationID = location
        #expect(try await admin.call(TestAdmin.Admin.listReaders, list).readers.count == 3)

        // A claimed serial alone is refused; a certificate for another serial too.
        let claimed = try await TestReader.attach(harness, serial: serials[0])
        #expect(await claimed.waitUntilEnded()?.reason == .serialNotProven)
        let wrong = try await TestReader.attach(harness, serial: serials[0], certificate: try harness.readerCertificate(serial: serials[1]))
        #expect(await wrong.waitUntilEnded()?.reason == .serialNotProven)
        // The certificate proving the serial brings the reader online.
        let proven = try await TestReader.attach(harness, serial: serials[0], certificate: try harness.readerCertificate(serial: serials[0]))
        #expect(await proven.waitUntilRegistered()?.readerID == readers[0].id)
        list.networkStatus = .online
        #expect(try await admin.call(TestAdmin.Admin.listReaders, list).readers.map(\.id) == [readers[0].id])
        await harness.stop()
    }
}
