import GatewayCore
import GatewayOperations
import GatewayService
import GatewayTransport
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

        // The admin types it in lower case; the reader is told at once, and the answer
        // is the reader as it is now: attached, heartbeating, online.
        let registered = try await admin.registerCode(code.lowercased(), label: "Pop-up till", location: location)
        #expect(registered.label == "Pop-up till")
        #expect(registered.serialNumber == "WSC5000001")
        #expect(registered.networkStatus == .online, "RegisterReader answered with a stale status: \(registered.networkStatus)")
        #expect(registered.activity == .idle)
        #expect(registered.ipAddress == "10.0.0.7")
        #expect(registered.lastSeenUnixMs > 0)
        var get = ReaderGatewayV1.GetReaderRequest()
        get.readerID = registered.id
        let live = try #require(try await admin.call(TestAdmin.Admin.getReader, get).reader)
        #expect(live.networkStatus == registered.networkStatus && live.activity == registered.activity)
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

    @Test func aCodeTypedOnAnotherReplicaAnswersWithTheReadersLiveStatus() async throws {
        let harness = try await GatewayHarness.start()
        let certificate = try harness.authority.issue(
            CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: .server),
            writingTo: harness.directory, name: "server-b"
        )
        // A second replica on the same database: the admin types the code there, the
        // reader's link is on the first one (the registration travels over the replica link).
        let replicaB = GatewayServiceHost(
            listener: GatewayListenerConfiguration(host: "127.0.0.1", port: 0, certificate: certificate, readerCAPath: harness.caPath, loopCount: 1),
            service: ServiceConfiguration(), client: harness.database.client,
            metrics: GatewayMetrics(callMethods: GatewayServiceHost.methodNames, includeProcessMetrics: false), closeGracePeriod: .milliseconds(500)
        )
        let runningB = try await RunningPart.start(replicaB)
        let portB = try #require(replicaB.localAddress).port
        let admin = try await harness.admin()
        let location = try await admin.createLocation("Two replicas")
        let reader = try await TestReader.attach(harness, serial: "WSC5000002")
        let code = try #require(await reader.waitForCode(), "no registration code: \(String(describing: reader.endStatus))")
        let channelB = try await TestChannel.connect(port: portB, caPath: harness.caPath, loop: harness.loops.next())
        let adminB = TestAdmin(channel: channelB, secretKey: harness.account.secretKey)
        let registered = try await adminB.registerCode(code, label: "Far till", location: location)
        #expect(registered.networkStatus == .online, "RegisterReader answered with a stale status: \(registered.networkStatus)")
        #expect(registered.activity == .idle)
        #expect(registered.ipAddress == "10.0.0.7")
        #expect(await reader.waitUntilRegistered()?.readerID == registered.id)
        channelB.close()
        try await runningB.stop()
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
