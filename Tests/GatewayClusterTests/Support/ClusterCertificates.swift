import Foundation
import GatewayTransport
import Synchronization

/// One CA for the cluster: the replicas' shared server certificate (127.0.0.1 and
/// localhost, so the load balancer's port and every replica's port verify), and a client
/// certificate per reader serial (mutual TLS proves the serial; `--reader-ca` is the CA).
final class ClusterCertificates: Sendable {
    let directory: String
    let caPath: String
    let server: CertificateKeyPair
    private let authority: CertificateAuthority
    private let readers = Mutex<[String: CertificateKeyPair]>([:])

    init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        authority = try CertificateAuthority.create(commonName: "ReaderGateway cluster test CA")
        caPath = directory + "/ca.pem"
        try authority.write(certificatePath: caPath, keyPath: directory + "/ca-key.pem")
        server = try authority.issue(
            CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: .server),
            writingTo: directory, name: "server"
        )
    }

    /// The client certificate of the reader with `serial` (subject CN and serialNumber).
    func reader(_ serial: String) throws -> CertificateKeyPair {
        if let existing = readers.withLock({ $0[serial] }) { return existing }
        let pair = try authority.issue(
            CertificateRequest(commonName: serial, subjectSerialNumber: serial, usage: .client),
            writingTo: directory, name: "reader-\(serial)"
        )
        readers.withLock { $0[serial] = pair }
        return pair
    }
}
