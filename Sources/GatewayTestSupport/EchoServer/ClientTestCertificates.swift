import Foundation
import GatewayTransport

/// A CA, a server certificate for loopback and a reader client certificate, minted once per run.
package struct ClientTestCertificates: Sendable {
    package let directory: String
    package let caPath: String
    package let otherCAPath: String
    package let server: CertificateKeyPair
    package let readerClient: CertificateKeyPair

    package static let shared: ClientTestCertificates = {
        do { return try ClientTestCertificates() } catch { fatalError("could not mint test certificates: \(error)") }
    }()

    private init() throws {
        directory = NSTemporaryDirectory() + "gateway-client-tests-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let authority = try CertificateAuthority.create(commonName: "Client Test CA")
        caPath = directory + "/ca.pem"
        try authority.write(certificatePath: caPath, keyPath: directory + "/ca-key.pem")
        let other = try CertificateAuthority.create(commonName: "Other CA")
        otherCAPath = directory + "/other-ca.pem"
        try other.write(certificatePath: otherCAPath, keyPath: directory + "/other-ca-key.pem")
        server = try authority.issue(
            CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"], usage: .server),
            writingTo: directory, name: "server"
        )
        readerClient = try authority.issue(
            CertificateRequest(commonName: "reader SIM-0001", subjectSerialNumber: "SIM-0001", usage: .client),
            writingTo: directory, name: "reader-SIM-0001"
        )
    }
}
