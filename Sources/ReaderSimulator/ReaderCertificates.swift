import Foundation
import GatewayCommandLine
import GatewayTransport

/// Client certificates for mutual TLS, one per reader: read from the certificate directory,
/// or minted there from the reader CA.
struct ReaderCertificates: Sendable {
    let directory: String
    let authority: CertificateAuthority?

    init?(_ configuration: SimulatorConfiguration) throws {
        guard configuration.usesMutualTLS else { return nil }
        directory = configuration.certificateDirectory ?? NSTemporaryDirectory() + "reader-sim-certificates-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let key = configuration.readerCAKeyPath, let certificate = configuration.readerCACertificatePath {
            authority = try CertificateAuthority(certificatePath: certificate, keyPath: key)
        } else {
            authority = nil
        }
    }

    /// The certificate for `serial` (subject serialNumber and CN = the serial).
    func pair(for serial: String) throws -> CertificateKeyPair {
        let existing = CertificateKeyPair(
            certificateChainPath: (directory as NSString).appendingPathComponent("\(serial).pem"),
            privateKeyPath: (directory as NSString).appendingPathComponent("\(serial)-key.pem")
        )
        let files = FileManager.default
        if files.fileExists(atPath: existing.certificateChainPath) && files.fileExists(atPath: existing.privateKeyPath) {
            return existing
        }
        guard let authority else {
            throw SimulatorError("no certificate for \(serial) in \(directory) and no --reader-ca-key to mint one")
        }
        return try authority.issue(
            CertificateRequest(commonName: serial, subjectSerialNumber: serial, usage: .client),
            writingTo: directory, name: serial
        )
    }
}

/// A start-up problem of reader-sim, with what to do about it.
struct SimulatorError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
