import CGatewayOpenSSL
import Foundation
import GatewayCore

/// An OpenSSL `SSL_CTX` configured for this gateway: TLS 1.2 and 1.3 only, forward-secret AEAD
/// ciphers, no compression, no renegotiation, buffers released while idle.
///
/// Immutable after creation and therefore shared by every loop (OpenSSL allows concurrent
/// `SSL_new` on a configured context). Reloading certificates builds a new context; connections
/// keep the one they started with (each `SSL` holds a reference), so none is dropped.
public final class TLSContext: @unchecked Sendable {
    // @unchecked: `context` is written only in init and freed in deinit; OpenSSL synchronises
    // its own reference counts and session cache.
    let context: OpaquePointer
    private let alpnPreference: UnsafeMutablePointer<UInt8>?
    /// The session ticket keys and lifetime the ticket callbacks read (server contexts that
    /// issue tickets); freed with the context.
    private let ticketKeys: UnsafeMutablePointer<rg_ticket_keys>?
    /// Whether this is a server context (otherwise a client context).
    public let isServer: Bool
    let verifyServer: Bool

    /// TLS 1.2 suites: ECDHE only (forward secrecy), AEAD only, ECDSA and RSA authentication.
    static let tls12Ciphers =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
    /// TLS 1.3 suites (all forward secret by design).
    static let tls13Suites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"
    static let groups = "X25519:P-256:P-384"

    /// Builds a server context from files; throws a ``TransportError`` naming the bad file.
    public init(server configuration: TLSServerConfiguration) throws {
        guard !configuration.certificates.isEmpty else {
            throw TransportError(.configuration, "no server certificate configured; give a certificate and key, or use the development certificate authority")
        }
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TransportError(.configuration, "OpenSSL could not create a server context", cause: OpenSSLErrors.drain())
        }
        self.context = context
        self.isServer = true
        self.verifyServer = false
        self.alpnPreference = Self.alpnPreference(configuration.alpnProtocols)
        self.ticketKeys = configuration.sessionTickets > 0 ? Self.ticketKeys(configuration) : nil
        try applyCommon(tls13Only: false)
        _ = rg_SSL_CTX_set_options(context, rg_SSL_OP_CIPHER_SERVER_PREFERENCE())
        _ = rg_SSL_CTX_set_session_cache_mode(context, rg_SSL_SESS_CACHE_SERVER())
        _ = rg_SSL_CTX_set_session_id_context_default(context)
        _ = SSL_CTX_set_num_tickets(context, Int(configuration.sessionTickets))
        if let ticketKeys {
            // The lifetime bounds the hint clients get (so they stop offering old tickets) and
            // OpenSSL's own check; the decrypt callback checks it again with this server's
            // setting, and the client certificate's expiry, on every resumption. A ticket
            // carries the client's identity and that expiry, not its certificate (the ticket
            // callbacks: `rg_ticket_generate`).
            _ = SSL_CTX_set_timeout(context, max(1, Int(configuration.ticketLifetime.components.seconds)))
            let installed = configuration.ticketKeys == nil
                ? rg_SSL_CTX_check_ticket_lifetime(context, ticketKeys) : rg_SSL_CTX_use_ticket_keys(context, ticketKeys)
            guard installed == 1 else {
                throw TransportError(.configuration, "OpenSSL refused the session ticket callbacks", cause: OpenSSLErrors.drain())
            }
        }
        for pair in configuration.certificates {
            try Self.use(pair, in: context)
        }
        // With client certificates, a connection keeps its client's own certificate (the
        // identity) but not the rest of the chain the client sent once it has been verified:
        // about 4.5 KB per reader whose client sends its root along, as OpenSSL clients do
        // (docs/performance.md, "Memory per attached reader").
        switch configuration.clientAuthentication {
        case .none:
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        case .optional(let path):
            try Self.trust(path, in: context, advertise: true)
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            rg_SSL_CTX_release_sent_chain_after_verify(context)
        case .required(let path):
            try Self.trust(path, in: context, advertise: true)
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
            rg_SSL_CTX_release_sent_chain_after_verify(context)
        }
        if let alpnPreference { rg_SSL_CTX_set_alpn_server(context, alpnPreference) }
    }

    /// The system's trust store, parsed once per process and shared by every client context
    /// that verifies against it. Parsing it costs 40 to 70 ms of CPU (about 140 certificates),
    /// which every context paid before, on whatever thread built it: a replica's webhook worker
    /// at start, and each of the hundreds of gateways a test process starts, on Swift's
    /// cooperative pool. OpenSSL counts a store's references (`SSL_CTX_set1_cert_store` takes
    /// one) and locks it for concurrent verifications, hence `nonisolated(unsafe)`; it is never
    /// freed.
    nonisolated(unsafe) static let systemTrustStore: Result<OpaquePointer, TransportError> = {
        guard let store = X509_STORE_new() else {
            return .failure(TransportError(.configuration, "OpenSSL could not create a trust store", cause: OpenSSLErrors.drain()))
        }
        guard X509_STORE_set_default_paths(store) == 1 else {
            X509_STORE_free(store)
            return .failure(TransportError(.certificateFile, "could not load the system trust store; configure a CA file", cause: OpenSSLErrors.drain()))
        }
        return .success(store)
    }()

    /// Builds a client context; throws a ``TransportError`` naming the bad file.
    public init(client configuration: TLSClientConfiguration) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TransportError(.configuration, "OpenSSL could not create a client context", cause: OpenSSLErrors.drain())
        }
        self.context = context
        self.isServer = false
        self.verifyServer = configuration.verifyServer
        self.alpnPreference = nil
        self.ticketKeys = nil
        try applyCommon(tls13Only: configuration.tls13Only)
        // Sessions go to the connection's TLSSessionCache (when it has one), not to a cache in
        // the context: a reader offers its own last session, never another reader's.
        _ = rg_SSL_CTX_set_session_cache_mode(context, rg_SSL_SESS_CACHE_CLIENT_NO_INTERNAL())
        SSL_CTX_sess_set_new_cb(context, TLSSessionCache.newSessionCallback)
        if configuration.verifyServer {
            if let path = configuration.trustedCAPath {
                try Self.trust(path, in: context, advertise: false)
            } else {
                SSL_CTX_set1_cert_store(context, try Self.systemTrustStore.get())
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        if let pair = configuration.certificate { try Self.use(pair, in: context) }
        if !configuration.alpnProtocols.isEmpty {
            let wire = Self.alpnWire(configuration.alpnProtocols)
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
                throw TransportError(.configuration, "invalid ALPN protocol list \(configuration.alpnProtocols)")
            }
        }
    }

    deinit {
        SSL_CTX_free(context)
        alpnPreference?.deallocate()
        ticketKeys?.deallocate()
    }

    private func applyCommon(tls13Only: Bool) throws {
        ERR_clear_error()
        _ = rg_SSL_CTX_set_min_proto_version(context, tls13Only ? rg_TLS1_3_VERSION() : rg_TLS1_2_VERSION())
        _ = rg_SSL_CTX_set_max_proto_version(context, rg_TLS1_3_VERSION())
        _ = rg_SSL_CTX_set_options(context, rg_SSL_OP_NO_COMPRESSION() | rg_SSL_OP_NO_RENEGOTIATION())
        guard SSL_CTX_set_cipher_list(context, Self.tls12Ciphers) == 1,
              SSL_CTX_set_ciphersuites(context, Self.tls13Suites) == 1,
              rg_SSL_CTX_set1_groups_list(context, Self.groups) == 1
        else {
            throw TransportError(.configuration, "OpenSSL refused the cipher or group list", cause: OpenSSLErrors.drain())
        }
        // Not SSL_MODE_RELEASE_BUFFERS, which frees and reallocates the record buffers around
        // every read and write: each loop frees the buffers of connections that went quiet
        // (see TLSConnection+Buffers.swift), so idle connections still hold none.
        _ = rg_SSL_CTX_set_mode(context, rg_SSL_MODE_ENABLE_PARTIAL_WRITE() | rg_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER())
        // SSL_MODE_AUTO_RETRY stays on (OpenSSL 3's default): after a non-application record
        // (a session ticket, a key update) SSL_read reads on instead of returning WANT_READ with
        // data still in the socket, so WANT_READ always means EAGAIN — which edge-triggered
        // epoll relies on.
        _ = rg_SSL_CTX_set_mode(context, rg_SSL_MODE_AUTO_RETRY())
        // Read ahead: one read(2) fetches as many records as the socket holds, instead of one
        // for each record header and one for each body. Released with the buffers when idle.
        rg_SSL_CTX_set_read_ahead(context, 1)
    }

    private static func checkReadable(_ path: String, what: String, code: TransportError.Code) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw TransportError(code, "the \(what) file \(path) does not exist; check the path in the configuration")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw TransportError(code, "the \(what) file \(path) is not readable by this process; check its permissions")
        }
    }

    private static func use(_ pair: CertificateKeyPair, in context: OpaquePointer) throws {
        try checkReadable(pair.certificateChainPath, what: "certificate", code: .certificateFile)
        try checkReadable(pair.privateKeyPath, what: "private key", code: .privateKeyFile)
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(context, pair.certificateChainPath) == 1 else {
            throw TransportError(.certificateFile, "\(pair.certificateChainPath) holds no usable PEM certificate chain", cause: OpenSSLErrors.drain())
        }
        guard SSL_CTX_use_PrivateKey_file(context, pair.privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw TransportError(
                .privateKeyFile,
                "\(pair.privateKeyPath) holds no usable PEM private key for \(pair.certificateChainPath) (unencrypted PEM needed, and it must match the certificate)",
                cause: OpenSSLErrors.drain()
            )
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TransportError(
                .keyMismatch,
                "the private key \(pair.privateKeyPath) does not belong to the certificate \(pair.certificateChainPath); configure the matching pair",
                cause: OpenSSLErrors.drain()
            )
        }
    }

    private static func trust(_ path: String, in context: OpaquePointer, advertise: Bool) throws {
        try checkReadable(path, what: "CA certificate", code: .certificateFile)
        ERR_clear_error()
        guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
            throw TransportError(.certificateFile, "\(path) holds no usable PEM CA certificate", cause: OpenSSLErrors.drain())
        }
        if advertise, let names = SSL_load_client_CA_file(path) {
            SSL_CTX_set_client_CA_list(context, names)
        }
        SSL_CTX_set_verify_depth(context, 8)
    }

    /// The ticket callbacks' view of the configuration: the shared keys (if any) and the lifetime.
    private static func ticketKeys(_ configuration: TLSServerConfiguration) -> UnsafeMutablePointer<rg_ticket_keys> {
        let keys = UnsafeMutablePointer<rg_ticket_keys>.allocate(capacity: 1)
        keys.initialize(to: rg_ticket_keys())
        let shared = configuration.ticketKeys?.keys ?? []
        keys.pointee.count = Int32(shared.count)
        for (index, key) in shared.enumerated() { rg_ticket_keys_set(keys, Int32(index), key) }
        keys.pointee.lifetime_seconds = Int(configuration.ticketLifetime.components.seconds)
        return keys
    }

    static func alpnWire(_ protocols: [String]) -> [UInt8] {
        var wire: [UInt8] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            precondition(!bytes.isEmpty && bytes.count < 256, "an ALPN protocol name is 1 to 255 bytes")
            wire.append(UInt8(bytes.count))
            wire.append(contentsOf: bytes)
        }
        return wire
    }

    private static func alpnPreference(_ protocols: [String]) -> UnsafeMutablePointer<UInt8>? {
        guard !protocols.isEmpty else { return nil }
        let wire = alpnWire(protocols)
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: wire.count + 2)
        pointer[0] = UInt8(wire.count & 0xff)
        pointer[1] = UInt8(wire.count >> 8)
        for (offset, byte) in wire.enumerated() { pointer[offset + 2] = byte }
        return pointer
    }
}
