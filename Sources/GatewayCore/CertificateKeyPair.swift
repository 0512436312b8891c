/// A certificate chain file and its private key file, both PEM.
public struct CertificateKeyPair: Sendable, Hashable {
    /// The leaf certificate first, then intermediates (PEM).
    public var certificateChainPath: String
    /// The private key of the leaf certificate (PEM, unencrypted).
    public var privateKeyPath: String

    public init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }
}
