import Foundation
import GatewayPostgres
import GatewayRepositories
import GatewayTransport

/// The certificates of the replica link (mutual TLS between replicas).
///
/// The cluster's internal CA lives in PostgreSQL (`cluster_settings`): the
/// first replica that needs it creates it, every other replica reads the same
/// one, so joining the cluster needs nothing but the database. Each replica
/// issues itself a certificate for its advertised address at start; peers
/// verify that chain, and the internal listener accepts only clients with a
/// certificate from the same CA. Whoever can read the database can join —
/// the same trust the database already implies (it decides ownership).
struct InternalCertificates: Sendable {
    /// The internal CA certificate (PEM file), trusted by both sides.
    let caPath: String
    /// This replica's server certificate (internal listener).
    let server: CertificateKeyPair
    /// This replica's client certificate (calls to other replicas).
    let client: CertificateKeyPair

    static let setting = "internal_ca_pem"

    /// Loads (or creates, once per cluster) the internal CA and issues this
    /// node's certificates into `directory` (created private).
    static func prepare(cluster: ClusterStore, nodeID: String, advertiseAddress: String, directory: String) async throws -> InternalCertificates {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Certificate and key are stored as one value, so a concurrent first start
        // of two replicas cannot pair one's certificate with the other's key.
        let stored = try await cluster.setting(setting) {
            let created = try CertificateAuthority.create(commonName: "reader-gateway internal CA")
            return created.certificate.pem() + created.key.pem()
        }
        // The certificate's PEM block, then the key's.
        let marker = "-----END CERTIFICATE-----"
        guard let end = stored.range(of: marker) else {
            throw InternalCertificateError("the stored internal CA is malformed; delete the cluster_settings row \(setting) while no replica runs")
        }
        let caPath = (directory as NSString).appendingPathComponent("internal-ca.pem")
        let caKeyPath = (directory as NSString).appendingPathComponent("internal-ca-key.pem")
        try write(String(stored[..<end.upperBound]) + "\n", to: caPath)
        try write(String(stored[end.upperBound...]).trimmingCharacters(in: .whitespacesAndNewlines) + "\n", to: caKeyPath)
        defer { try? FileManager.default.removeItem(atPath: caKeyPath) }
        let authority = try CertificateAuthority(certificatePath: caPath, keyPath: caKeyPath)
        let isIP = SocketAddress.isNumeric(advertiseAddress)
        var names = ["localhost"]
        if !isIP { names.insert(advertiseAddress, at: 0) }
        let addresses = isIP ? [advertiseAddress] : []
        let server = try authority.issue(
            CertificateRequest(commonName: nodeID, dnsNames: names, ipAddresses: addresses, usage: .server),
            writingTo: directory, name: "node-server"
        )
        let client = try authority.issue(CertificateRequest(commonName: nodeID, usage: .client), writingTo: directory, name: "node-client")
        return InternalCertificates(caPath: caPath, server: server, client: client)
    }

    private static func write(_ text: String, to path: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
    }
}

struct InternalCertificateError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
