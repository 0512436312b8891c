import GatewayTestKit
import GatewayTransport
import Testing

@Suite("Server certificates the client must reject")
struct CertificateVerificationTests {
    private func connectError(serverCertificate: CertificateKeyPair, serverName: String? = nil) async throws -> TransportError? {
        let server = try TestServer(configure: { $0.certificates = [serverCertificate] })
        defer { Task { await server.stop() } }
        do {
            let client = try await AsyncTLSConnection.connect(
                host: "127.0.0.1", port: server.port, serverName: serverName,
                context: try TestCertificates.shared.clientContext(), on: server.group.next()
            )
            client.close()
            return nil
        } catch let error as TransportError {
            return error
        }
    }

    @Test("an expired certificate is rejected with a message that says so")
    func expired() async throws {
        let error = try await connectError(serverCertificate: TestCertificates.shared.expiredServer)
        #expect(error?.code == .certificateVerification)
        #expect(error?.message.contains("certificate has expired") == true)
    }

    @Test("a certificate from another CA is rejected")
    func wrongCA() async throws {
        let error = try await connectError(serverCertificate: TestCertificates.shared.wrongCAServer)
        #expect(error?.code == .certificateVerification)
        #expect(error?.message.contains("unable to get local issuer certificate") == true)
    }

    @Test("a certificate for another host is rejected (IP and DNS name)")
    func wrongHost() async throws {
        let byAddress = try await connectError(serverCertificate: TestCertificates.shared.wrongHostServer)
        #expect(byAddress?.code == .certificateVerification)
        #expect(byAddress?.message.contains("mismatch") == true)
        let byName = try await connectError(serverCertificate: TestCertificates.shared.wrongHostServer, serverName: "localhost")
        #expect(byName?.code == .certificateVerification)
        #expect(byName?.message.lowercased().contains("hostname mismatch") == true, "\(String(describing: byName))")
    }

    @Test("the right certificate verifies by IP and by name")
    func accepted() async throws {
        #expect(try await connectError(serverCertificate: TestCertificates.shared.serverECDSA) == nil)
        #expect(try await connectError(serverCertificate: TestCertificates.shared.serverECDSA, serverName: "localhost") == nil)
    }

    @Test("a client connecting to a closed port fails with connectFailed")
    func refusedPort() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let port: Int
        do {
            // Bind and close to find a port nobody listens on.
            let server = try TestServer()
            port = server.port
            await server.stop()
        }
        await #expect(throws: TransportError.self) {
            _ = try await AsyncTLSConnection.connect(
                host: "127.0.0.1", port: port, context: try TestCertificates.shared.clientContext(), on: group.next()
            )
        }
        await group.shutdown()
    }
}

@Suite("Mutual TLS for readers")
struct MutualTLSTests {
    private func server(_ authentication: ClientAuthentication) throws -> TestServer {
        try TestServer(configure: { $0.clientAuthentication = authentication })
    }

    @Test("a reader certificate from the reader CA is accepted and its serial handed up")
    func accepted() async throws {
        let certificates = TestCertificates.shared
        let server = try server(.required(trustedCAPath: certificates.caPath))
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port,
            context: try certificates.clientContext(certificate: certificates.readerClient), on: server.group.next()
        )
        client.write([1])
        var iterator = client.inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        #expect(try await AsyncTLSConnection.read(exactly: 1, from: &iterator, carry: &carry) == [1])
        #expect(server.record.snapshot.active.first?.verifiedClientIdentity == "WSC513-0001")
        client.close()
        await server.stop()
    }

    @Test("no client certificate, or one from another CA, is refused")
    func refused() async throws {
        let certificates = TestCertificates.shared
        let server = try server(.required(trustedCAPath: certificates.caPath))
        for certificate in [nil, certificates.wrongCAReaderClient] {
            // With TLS 1.3 the client may finish its side before the server's verdict arrives:
            // either the connect fails or the connection is closed right after.
            do {
                let client = try await AsyncTLSConnection.connect(
                    host: "127.0.0.1", port: server.port,
                    context: try certificates.clientContext(certificate: certificate), on: server.group.next()
                )
                client.write([1])
                var received: [UInt8] = []
                do {
                    for try await chunk in client.inbound { received += chunk }
                } catch {}
                #expect(received.isEmpty)
                #expect(await client.waitUntilClosed(timeout: .seconds(5)) != nil)
            } catch {
                #expect(error is TransportError)
            }
        }
        #expect(await eventually { server.record.snapshot.active.isEmpty && server.server.connectionCount == 0 })
        await server.stop()
    }

    @Test("optional client authentication admits lanes without certificates")
    func optional() async throws {
        let certificates = TestCertificates.shared
        let server = try server(.optional(trustedCAPath: certificates.caPath))
        let lane = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try certificates.clientContext(), on: server.group.next()
        )
        let reader = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port,
            context: try certificates.clientContext(certificate: certificates.readerClient), on: server.group.next()
        )
        #expect(await eventually { server.record.snapshot.active.count == 2 })
        let identities = Set(server.record.snapshot.active.map { $0.verifiedClientIdentity ?? "none" })
        #expect(identities == ["none", "WSC513-0001"])
        lane.close()
        reader.close()
        await server.stop()
    }
}

@Suite("Certificate chains")
struct CertificateChainTests {
    @Test("a leaf issued by an intermediate verifies against the root when the chain is served, not otherwise")
    func intermediateChain() async throws {
        let certificates = TestCertificates.shared
        let intermediate = try certificates.authority.issueIntermediate(commonName: "Test intermediate")
        let request = CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: .server)
        let key = try PrivateKey.ecdsaP256()
        let withChain = try intermediate.issue(request, key: key, chain: [intermediate.certificate], writingTo: certificates.directory, name: "chained")
        let leafOnly = try intermediate.issue(request, key: key, writingTo: certificates.directory, name: "leaf-only")

        let good = try TestServer(configure: { $0.certificates = [withChain] })
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: good.port, context: try certificates.clientContext(), on: good.group.next()
        )
        client.close()
        await good.stop()

        let bad = try TestServer(configure: { $0.certificates = [leafOnly] })
        let error = await #expect(throws: TransportError.self) {
            _ = try await AsyncTLSConnection.connect(
                host: "127.0.0.1", port: bad.port, context: try certificates.clientContext(), on: bad.group.next()
            )
        }
        #expect(error?.code == .certificateVerification)
        await bad.stop()
    }
}
