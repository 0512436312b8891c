import CGatewayOpenSSL
import Foundation
import GatewayCore

/// What a certificate is for.
public enum CertificateUsage: Sendable, Hashable {
    /// A TLS server (serverAuth).
    case server
    /// A TLS client, such as a reader (clientAuth).
    case client
}

/// What to put in a certificate an authority signs.
public struct CertificateRequest: Sendable {
    public var commonName: String
    /// The subject serialNumber attribute (a reader's serial); the server hands it up as the identity.
    public var subjectSerialNumber: String?
    public var dnsNames: [String]
    public var ipAddresses: [String]
    public var usage: CertificateUsage
    /// Start of validity relative to now (negative: in the past).
    public var notBefore: Duration = .seconds(-3_600)
    /// End of validity relative to now (negative: already expired).
    public var notAfter: Duration = .seconds(825 * 86_400)

    public init(commonName: String, subjectSerialNumber: String? = nil, dnsNames: [String] = [], ipAddresses: [String] = [], usage: CertificateUsage) {
        self.commonName = commonName
        self.subjectSerialNumber = subjectSerialNumber
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.usage = usage
    }
}

/// A certificate authority: a self-signed CA certificate and its key, able to issue server and
/// client certificates. Used by the development CA and by tests minting expired, wrong-host,
/// wrong-CA and reader certificates.
public final class CertificateAuthority: Sendable {
    public let certificate: Certificate
    public let key: PrivateKey

    public init(certificate: Certificate, key: PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// A new self-signed CA with an ECDSA P-256 key, valid for ten years.
    public static func create(commonName: String) throws -> CertificateAuthority {
        let key = try PrivateKey.ecdsaP256()
        let certificate = try CertificateBuilder.build(
            subject: CertificateBuilder.Subject(commonName: commonName, serialNumber: nil),
            publicKey: key,
            issuer: nil,
            signer: key,
            notBefore: .seconds(-3_600),
            notAfter: .seconds(10 * 365 * 86_400),
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ]
        )
        return CertificateAuthority(certificate: certificate, key: key)
    }

    /// A new intermediate CA (ECDSA P-256) signed by this one; servers present its certificate
    /// after their own in the chain file.
    public func issueIntermediate(commonName: String) throws -> CertificateAuthority {
        let key = try PrivateKey.ecdsaP256()
        let certificate = try CertificateBuilder.build(
            subject: CertificateBuilder.Subject(commonName: commonName, serialNumber: nil),
            publicKey: key,
            issuer: self.certificate,
            signer: self.key,
            notBefore: .seconds(-3_600),
            notAfter: .seconds(5 * 365 * 86_400),
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ]
        )
        return CertificateAuthority(certificate: certificate, key: key)
    }

    /// Loads a CA from PEM files.
    public convenience init(certificatePath: String, keyPath: String) throws {
        let certificate = try Certificate(pemFile: certificatePath)
        let key = try PrivateKey(pemFile: keyPath)
        guard certificate.matches(key) else {
            throw TransportError(.keyMismatch, "the CA key \(keyPath) does not belong to \(certificatePath)")
        }
        self.init(certificate: certificate, key: key)
    }

    /// A certificate for `key` (default: a fresh ECDSA P-256 key), signed by this CA.
    public func issue(_ request: CertificateRequest, key: PrivateKey? = nil) throws -> (certificate: Certificate, key: PrivateKey) {
        let subjectKey = try key ?? PrivateKey.ecdsaP256()
        var extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature,keyEncipherment"),
            (NID_ext_key_usage, request.usage == .server ? "serverAuth" : "clientAuth"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ]
        let names = request.dnsNames.map { "DNS:\($0)" } + request.ipAddresses.map { "IP:\($0)" }
        if !names.isEmpty { extensions.append((NID_subject_alt_name, names.joined(separator: ","))) }
        let certificate = try CertificateBuilder.build(
            subject: CertificateBuilder.Subject(commonName: request.commonName, serialNumber: request.subjectSerialNumber),
            publicKey: subjectKey,
            issuer: self.certificate,
            signer: self.key,
            notBefore: request.notBefore,
            notAfter: request.notAfter,
            extensions: extensions
        )
        return (certificate, subjectKey)
    }

    /// Signs a certificate and writes `<name>.pem` (the leaf, then `chain` — intermediates, in
    /// order) and `<name>-key.pem` into `directory`.
    public func issue(
        _ request: CertificateRequest,
        key: PrivateKey? = nil,
        chain: [Certificate] = [],
        writingTo directory: String,
        name: String
    ) throws -> CertificateKeyPair {
        let (certificate, subjectKey) = try issue(request, key: key)
        let pair = CertificateKeyPair(
            certificateChainPath: (directory as NSString).appendingPathComponent("\(name).pem"),
            privateKeyPath: (directory as NSString).appendingPathComponent("\(name)-key.pem")
        )
        try PEMWriter.save(([certificate] + chain).map { $0.pem() }.joined(), to: pair.certificateChainPath, permissions: 0o644)
        try PEMWriter.save(subjectKey.pem(), to: pair.privateKeyPath, permissions: 0o600)
        return pair
    }

    /// Writes the CA certificate and key as PEM files.
    public func write(certificatePath: String, keyPath: String) throws {
        try PEMWriter.save(certificate.pem(), to: certificatePath, permissions: 0o644)
        try PEMWriter.save(key.pem(), to: keyPath, permissions: 0o600)
    }
}

/// Builds and signs X.509 v3 certificates with OpenSSL's C API.
enum CertificateBuilder {
    struct Subject {
        var commonName: String
        var serialNumber: String?
    }

    static func build(
        subject: Subject,
        publicKey: PrivateKey,
        issuer: Certificate?,
        signer: PrivateKey,
        notBefore: Duration,
        notAfter: Duration,
        extensions: [(Int32, String)]
    ) throws -> Certificate {
        func fail(_ what: String) -> TransportError {
            TransportError(.certificateGeneration, "could not build a certificate for \(subject.commonName): \(what)", cause: OpenSSLErrors.drain())
        }
        ERR_clear_error()
        guard let x509 = X509_new() else { throw fail("X509_new") }
        let certificate = Certificate(taking: x509)
        guard X509_set_version(x509, 2) == 1 else { throw fail("version") }
        var serial = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&serial, Int32(serial.count)) == 1 else { throw fail("random serial") }
        serial[0] &= 0x7f
        guard let bignum = BN_bin2bn(serial, Int32(serial.count), nil) else { throw fail("serial") }
        defer { BN_free(bignum) }
        guard BN_to_ASN1_INTEGER(bignum, X509_get_serialNumber(x509)) != nil else { throw fail("serial") }
        guard X509_gmtime_adj(X509_getm_notBefore(x509), Int(notBefore.components.seconds)) != nil,
              X509_gmtime_adj(X509_getm_notAfter(x509), Int(notAfter.components.seconds)) != nil
        else { throw fail("validity") }
        guard X509_set_pubkey(x509, publicKey.pointer) == 1 else { throw fail("public key") }
        guard let name = X509_get_subject_name(x509) else { throw fail("subject") }
        guard add(subject.commonName, nid: NID_commonName, to: name) else { throw fail("common name") }
        if let serialNumber = subject.serialNumber {
            guard add(serialNumber, nid: NID_serialNumber, to: name) else { throw fail("serialNumber attribute") }
        }
        let issuerName = issuer.map { X509_get_subject_name($0.pointer) } ?? name
        guard X509_set_issuer_name(x509, issuerName) == 1 else { throw fail("issuer") }
        for (nid, value) in extensions {
            guard rg_X509_add_ext_text(x509, issuer?.pointer ?? x509, nid, value) == 1 else { throw fail("extension \(value)") }
        }
        guard X509_sign(x509, signer.pointer, EVP_sha256()) > 0 else { throw fail("signature") }
        return certificate
    }

    private static func add(_ value: String, nid: Int32, to name: OpaquePointer) -> Bool {
        let bytes = Array(value.utf8)
        return X509_NAME_add_entry_by_NID(name, nid, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1
    }
}
