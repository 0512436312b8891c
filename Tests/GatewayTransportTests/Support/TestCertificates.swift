import Foundation
import GatewayTransport

/// Certificates minted once per test run under a temporary directory.
struct TestCertificates: Sendable {
    let directory: String
    let authority: CertificateAuthority
    let caPath: String
    let otherCAPath: String
    let serverECDSA: CertificateKeyPair
    let serverRSA: CertificateKeyPair
    let expiredServer: CertificateKeyPair
    let wrongHostServer: CertificateKeyPair
    let wrongCAServer: CertificateKeyPair
    let readerClient: CertificateKeyPair
    let wrongCAReaderClient: CertificateKeyPair

    static let shared: TestCertificates = {
        do { return try TestCertificates() } catch { fatalError("could not mint test certificates: \(error)") }
    }()

    private init() throws {
        directory = NSTemporaryDirectory() + "gateway-transport-tests-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        authority = try CertificateAuthority.create(commonName: "Test CA")
        caPath = directory + "/ca.pem"
        try authority.write(certificatePath: caPath, keyPath: directory + "/ca-key.pem")
        let other = try CertificateAuthority.create(commonName: "Other CA")
        otherCAPath = directory + "/other-ca.pem"
        try other.write(certificatePath: otherCAPath, keyPath: directory + "/other-ca-key.pem")

        let local = CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"], usage: .server)
        serverECDSA = try authority.issue(local, writingTo: directory, name: "server-ec")
        serverRSA = try authority.issue(local, key: try PrivateKey.rsa(bits: 2048), writingTo: directory, name: "server-rsa")
        var expired = local
        expired.notBefore = .seconds(-10 * 86_400)
        expired.notAfter = .seconds(-86_400)
        expiredServer = try authority.issue(expired, writingTo: directory, name: "server-expired")
        wrongHostServer = try authority.issue(
            CertificateRequest(commonName: "elsewhere.example", dnsNames: ["elsewhere.example"], ipAddresses: ["10.9.8.7"], usage: .server),
            writingTo: directory, name: "server-wrong-host"
        )
        wrongCAServer = try other.issue(local, writingTo: directory, name: "server-wrong-ca")
        readerClient = try authority.issue(
            CertificateRequest(commonName: "reader WSC513-0001", subjectSerialNumber: "WSC513-0001", usage: .client),
            writingTo: directory, name: "reader"
        )
        wrongCAReaderClient = try other.issue(
            CertificateRequest(commonName: "intruder", subjectSerialNumber: "WSC513-6666", usage: .client),
            writingTo: directory, name: "reader-wrong-ca"
        )
    }

    func clientContext(certificate: CertificateKeyPair? = nil, alpn: [String] = [], ca: String? = nil) throws -> TLSContext {
        try TLSContext(client: TLSClientConfiguration(trustedCAPath: ca ?? caPath, certificate: certificate, alpnProtocols: alpn))
    }
}
