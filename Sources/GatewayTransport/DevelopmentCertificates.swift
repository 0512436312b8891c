import Foundation
import GatewayCore

/// A local certificate authority and server certificate for development, created under a data
/// directory on first start and reused afterwards, so `make run` works and clients can pin the CA.
///
/// Files in `<directory>`: `ca.pem` (pin this in clients), `ca-key.pem`, `server.pem`,
/// `server-key.pem`, `server-names.txt` (the names the server certificate was issued for; when
/// the configured names change, a new server certificate is issued by the same CA).
public struct DevelopmentCertificates: Sendable {
    public var directory: String
    public var caCertificatePath: String
    public var caKeyPath: String
    public var server: CertificateKeyPair

    /// Loads the development CA from `directory`, creating it (and the server certificate for
    /// localhost, 127.0.0.1, ::1 and `hostNames`) if missing. Logs where the files are.
    public static func ensure(in directory: String, hostNames: [String] = [], logger: Logger = Logger(component: "transport")) throws -> DevelopmentCertificates {
        let path = { (name: String) in (directory as NSString).appendingPathComponent(name) }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw TransportError(.certificateGeneration, "could not create the certificate directory \(directory)", cause: "\(error)")
        }
        let certificates = DevelopmentCertificates(
            directory: directory,
            caCertificatePath: path("ca.pem"),
            caKeyPath: path("ca-key.pem"),
            server: CertificateKeyPair(certificateChainPath: path("server.pem"), privateKeyPath: path("server-key.pem"))
        )
        let fileManager = FileManager.default
        let authority: CertificateAuthority
        if fileManager.fileExists(atPath: certificates.caCertificatePath) && fileManager.fileExists(atPath: certificates.caKeyPath) {
            authority = try CertificateAuthority(certificatePath: certificates.caCertificatePath, keyPath: certificates.caKeyPath)
        } else {
            authority = try CertificateAuthority.create(commonName: "ReaderGateway development CA")
            try authority.write(certificatePath: certificates.caCertificatePath, keyPath: certificates.caKeyPath)
            logger.notice("created a development certificate authority", ["ca": certificates.caCertificatePath])
        }
        var dnsNames = ["localhost"]
        var addresses = ["127.0.0.1", "::1"]
        for name in hostNames where !dnsNames.contains(name) && !addresses.contains(name) {
            if (try? SocketAddress(host: name, port: 0)) != nil { addresses.append(name) } else { dnsNames.append(name) }
        }
        let namesPath = path("server-names.txt")
        let names = (dnsNames + addresses).joined(separator: "\n") + "\n"
        let recorded = try? String(contentsOfFile: namesPath, encoding: .utf8)
        let serverExists = fileManager.fileExists(atPath: certificates.server.certificateChainPath)
            && fileManager.fileExists(atPath: certificates.server.privateKeyPath)
        if !serverExists || recorded != names {
            var request = CertificateRequest(commonName: dnsNames[0], dnsNames: dnsNames, ipAddresses: addresses, usage: .server)
            request.notAfter = .seconds(365 * 86_400)
            _ = try authority.issue(request, writingTo: directory, name: "server")
            try PEMWriter.save(names, to: namesPath, permissions: 0o644)
            logger.notice("issued a development server certificate", ["certificate": certificates.server.certificateChainPath, "names": (dnsNames + addresses).joined(separator: ",")])
        }
        logger.info("development certificates", ["ca": certificates.caCertificatePath, "certificate": certificates.server.certificateChainPath, "key": certificates.server.privateKeyPath])
        return certificates
    }
}
