import CGatewayOpenSSL
@testable import GatewayTransport
import Testing

@Suite("The system trust store, parsed once per process")
struct SystemTrustStoreTests {
    @Test("client contexts without a CA file share one store, and it holds the system's certificates")
    func sharedAndLoaded() throws {
        let first = try TLSContext(client: TLSClientConfiguration(trustedCAPath: nil))
        let second = try TLSContext(client: TLSClientConfiguration(trustedCAPath: nil))
        let store = try #require(SSL_CTX_get_cert_store(first.context))
        #expect(SSL_CTX_get_cert_store(second.context) == store)
        #expect(store == (try TLSContext.systemTrustStore.get()))
        // The default CA file was read (not only a directory to look in later).
        #expect(OPENSSL_sk_num(X509_STORE_get0_objects(store)) > 0)
        // A context trusting a CA file of its own keeps a store of its own.
        let own = try TLSContext(client: TLSClientConfiguration(trustedCAPath: TestCertificates.shared.caPath))
        #expect(SSL_CTX_get_cert_store(own.context) != store)
    }
}
