import CGatewayOpenSSL
import Foundation

/// A private key owned by Swift (frees the OpenSSL `EVP_PKEY` on deinit).
public final class PrivateKey: @unchecked Sendable {
    // @unchecked: the key is never mutated after creation; OpenSSL keys are safe to share read-only.
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// A new ECDSA key on P-256.
    public static func ecdsaP256() throws -> PrivateKey {
        guard let key = rg_EVP_PKEY_keygen_ec("P-256") else {
            throw TransportError(.certificateGeneration, "could not generate an EC P-256 key", cause: OpenSSLErrors.drain())
        }
        return PrivateKey(taking: key)
    }

    /// A new RSA key.
    public static func rsa(bits: Int = 2048) throws -> PrivateKey {
        guard let key = rg_EVP_PKEY_keygen_rsa(bits) else {
            throw TransportError(.certificateGeneration, "could not generate an RSA-\(bits) key", cause: OpenSSLErrors.drain())
        }
        return PrivateKey(taking: key)
    }

    /// Reads an unencrypted PEM private key.
    public convenience init(pemFile path: String) throws {
        guard let bio = BIO_new_file(path, "r") else {
            throw TransportError(.privateKeyFile, "cannot open the private key file \(path)", cause: OpenSSLErrors.drain())
        }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
            throw TransportError(.privateKeyFile, "\(path) holds no PEM private key", cause: OpenSSLErrors.drain())
        }
        self.init(taking: key)
    }

    /// The key as PEM (PKCS#8, unencrypted).
    public func pem() -> String {
        PEMWriter.write { PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil) }
    }
}

/// An X.509 certificate owned by Swift (frees the OpenSSL `X509` on deinit).
public final class Certificate: @unchecked Sendable {
    // @unchecked: never mutated after it is built and signed.
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    /// Reads the first PEM certificate of a file.
    public convenience init(pemFile path: String) throws {
        guard let bio = BIO_new_file(path, "r") else {
            throw TransportError(.certificateFile, "cannot open the certificate file \(path)", cause: OpenSSLErrors.drain())
        }
        defer { BIO_free(bio) }
        guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
            throw TransportError(.certificateFile, "\(path) holds no PEM certificate", cause: OpenSSLErrors.drain())
        }
        self.init(taking: certificate)
    }

    /// The certificate as PEM.
    public func pem() -> String {
        PEMWriter.write { PEM_write_bio_X509($0, pointer) }
    }

    /// The subject common name.
    public var commonName: String? {
        X509_get_subject_name(pointer).flatMap { TLSConnection.text(of: NID_commonName, in: $0) }
    }

    /// Whether `key` is this certificate's private key.
    public func matches(_ key: PrivateKey) -> Bool {
        X509_check_private_key(pointer, key.pointer) == 1
    }
}

/// Collects what an OpenSSL PEM writer produces into a String.
enum PEMWriter {
    static func write(_ body: (OpaquePointer) -> Int32) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard body(bio) == 1 else { return "" }
        var data: UnsafeMutablePointer<CChar>?
        let length = rg_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Writes `text` to `path` atomically with the given permissions.
    static func save(_ text: String, to path: String, permissions: Int) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
        } catch {
            throw TransportError(.certificateGeneration, "could not write \(path); check that the directory is writable", cause: "\(error)")
        }
    }
}
