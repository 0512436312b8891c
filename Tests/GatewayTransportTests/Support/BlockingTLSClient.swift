import CGatewayLinux
import CGatewayOpenSSL
import GatewayTransport
import Glibc

/// A plain blocking OpenSSL client for tests that need to misbehave: stop reading, renegotiate,
/// drop TCP without close_notify, or never handshake at all. Every call is bounded by a socket
/// timeout.
///
/// Its calls block: tests make them through `onOwnThread`, never on Swift's cooperative pool.
/// `@unchecked Sendable` so it can be handed to that thread: one thread uses it at a time (each
/// call is awaited before the next).
final class BlockingTLSClient: @unchecked Sendable {
    let fd: Int32
    private(set) var ssl: OpaquePointer?
    private let context: OpaquePointer?

    /// Connects TCP only (blocking, with 5 s send and receive timeouts), from `source` (a
    /// loopback address such as 127.0.0.2) when given.
    init(port: Int, source: String? = nil) throws {
        var storage = sockaddr_storage()
        var length = socklen_t(0)
        guard rg_make_sockaddr("127.0.0.1", Int32(port), &storage, &length) == 0 else { throw Failure("address") }
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let socketFD = fd
        if let source {
            var local = sockaddr_storage()
            var localLength = socklen_t(0)
            guard rg_make_sockaddr(source, 0, &local, &localLength) == 0 else { throw Failure("source address") }
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, localLength) }
            }
            guard bound == 0 else {
                close(socketFD)
                throw Failure("bind \(source): \(rg_errno())")
            }
        }
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, length) }
        }
        guard rc == 0 else {
            close(socketFD)
            throw Failure("connect: \(rg_errno())")
        }
        context = nil
        ssl = nil
    }

    /// Connects and completes a TLS handshake, trusting `caPath`, optionally limited to TLS 1.2,
    /// with a small receive buffer (so that a peer that does not read fills up quickly), and
    /// presenting `certificate` (its chain file as it is: OpenSSL sends the certificates in it).
    init(port: Int, caPath: String, tls12Only: Bool = false, receiveBuffer: Int32? = nil, certificate: CertificateKeyPair? = nil) throws {
        var storage = sockaddr_storage()
        var length = socklen_t(0)
        guard rg_make_sockaddr("127.0.0.1", Int32(port), &storage, &length) == 0 else { throw Failure("address") }
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let socketFD = fd
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, length) }
        }
        guard rc == 0 else {
            close(socketFD)
            throw Failure("connect: \(rg_errno())")
        }
        let context = SSL_CTX_new(TLS_client_method())!
        self.context = context
        if tls12Only { _ = rg_SSL_CTX_set_max_proto_version(context, rg_TLS1_2_VERSION()) }
        SSL_CTX_load_verify_locations(context, caPath, nil)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let certificate {
            guard SSL_CTX_use_certificate_chain_file(context, certificate.certificateChainPath) == 1,
                  SSL_CTX_use_PrivateKey_file(context, certificate.privateKeyPath, SSL_FILETYPE_PEM) == 1
            else { throw Failure("client certificate \(certificate.certificateChainPath)") }
        }
        let ssl = SSL_new(context)!
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        ERR_clear_error()
        guard SSL_connect(ssl) == 1 else {
            throw Failure("handshake failed")
        }
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        if let context { SSL_CTX_free(context) }
        close(fd)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    func write(_ bytes: [UInt8]) -> Bool {
        guard let ssl else { return false }
        ERR_clear_error()
        return SSL_write(ssl, bytes, Int32(bytes.count)) == Int32(bytes.count)
    }

    /// Reads up to `count` bytes; nil on end of stream, error or timeout.
    func read(upTo count: Int) -> [UInt8]? {
        guard let ssl else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        ERR_clear_error()
        let n = SSL_read(ssl, &buffer, Int32(count))
        guard n > 0 else { return nil }
        return Array(buffer.prefix(Int(n)))
    }

    /// Reads raw TCP bytes (no TLS); 0 means the server closed the socket (blocks up to 5 s).
    func readRaw() -> Int {
        var buffer = [UInt8](repeating: 0, count: 4096)
        return recv(fd, &buffer, buffer.count, 0)
    }

    /// Waits (up to the 5 s socket timeout) for the server to close or reset the socket, discarding
    /// what it sends; false if the socket was still open when the wait ended.
    func waitForServerClose() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 { continue }
            if count == 0 { return true }
            let error = rg_errno()
            return error != EAGAIN && error != EWOULDBLOCK && error != EINTR
        }
    }

    /// Whether the server has closed or reset the socket, without waiting: false while it is
    /// open and silent (a non-blocking read finds nothing to read).
    var isClosedByServer: Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return count == 0 || (count < 0 && rg_errno() != EAGAIN && rg_errno() != EWOULDBLOCK)
    }

    /// Sends raw bytes (no TLS), for peers that start a ClientHello and never finish it.
    func writeRaw(_ bytes: [UInt8]) -> Bool {
        send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count
    }

    /// Starts a TLS 1.2 renegotiation; returns whether it completed.
    func renegotiate() -> Bool {
        guard let ssl else { return false }
        ERR_clear_error()
        guard SSL_renegotiate(ssl) == 1 else { return false }
        let rc = SSL_do_handshake(ssl)
        if rc != 1 { return false }
        // The new handshake completes only through reads; drive one.
        var byte: UInt8 = 0
        _ = SSL_write(ssl, [0x21], 1)
        let n = SSL_read(ssl, &byte, 1)
        return n > 0 && SSL_renegotiate_pending(ssl) == 0
    }

    /// TLS 1.3: updates this side's sending key and asks the server to update its own; both
    /// take effect with the next records each way.
    func requestKeyUpdate() -> Bool {
        guard let ssl else { return false }
        ERR_clear_error()
        return SSL_key_update(ssl, SSL_KEY_UPDATE_REQUESTED) == 1
    }

    /// Sends close_notify and waits (up to the 5 s socket timeout) for the server's.
    func closeNotify() -> Bool {
        guard let ssl else { return false }
        ERR_clear_error()
        let first = SSL_shutdown(ssl)
        if first == 1 { return true }
        guard first == 0 else { return false }
        return SSL_shutdown(ssl) == 1
    }

    /// Closes TCP with a reset and no close_notify.
    func abort() {
        _ = rg_set_linger_zero(fd)
        shutdown(fd, Int32(SHUT_RDWR))
    }
}

extension BlockingTLSClient {
    /// A TCP connection that sends a real ClientHello, reads the start of the server's answer
    /// and then never sends its own last flight: a client stalled one round trip from done.
    static func stalledAfterHello(port: Int) throws -> BlockingTLSClient {
        let client = try BlockingTLSClient(port: port)
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw Failure("SSL_CTX_new") }
        defer { SSL_CTX_free(context) }
        guard let ssl = SSL_new(context) else { throw Failure("SSL_new") }
        defer { SSL_free(ssl) }
        let toServer = BIO_new(BIO_s_mem())!
        SSL_set_bio(ssl, BIO_new(BIO_s_mem())!, toServer)
        SSL_set_connect_state(ssl)
        ERR_clear_error()
        _ = SSL_do_handshake(ssl)   // WANT_READ: the ClientHello is in `toServer`
        var data: UnsafeMutablePointer<CChar>?
        let length = rg_BIO_get_mem_data(toServer, &data)
        guard length > 0, let data else { throw Failure("no ClientHello") }
        let hello = Array(UnsafeRawBufferPointer(start: data, count: length))
        guard client.writeRaw(hello) else { throw Failure("send ClientHello") }
        guard client.readRaw() > 0 else { throw Failure("the server did not answer the ClientHello") }
        return client
    }
}
