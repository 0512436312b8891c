import CGatewayLinux
import CGatewayOpenSSL
import Glibc

/// A plain blocking OpenSSL client for tests that need to misbehave: stop reading, renegotiate,
/// drop TCP without close_notify, or never handshake at all. Every call is bounded by a socket
/// timeout.
final class BlockingTLSClient {
    let fd: Int32
    private(set) var ssl: OpaquePointer?
    private let context: OpaquePointer?

    /// Connects TCP only (blocking, with 5 s send and receive timeouts).
    init(port: Int) throws {
        var storage = sockaddr_storage()
        var length = socklen_t(0)
        guard rg_make_sockaddr("127.0.0.1", Int32(port), &storage, &length) == 0 else { throw Failure("address") }
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let socketFD = fd
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

    /// Connects and completes a TLS handshake, trusting `caPath`, optionally limited to TLS 1.2
    /// and with a small receive buffer (so that a peer that does not read fills up quickly).
    init(port: Int, caPath: String, tls12Only: Bool = false, receiveBuffer: Int32? = nil) throws {
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

    /// Reads raw TCP bytes (no TLS); 0 means the server closed the socket.
    func readRaw() -> Int {
        var buffer = [UInt8](repeating: 0, count: 4096)
        return recv(fd, &buffer, buffer.count, 0)
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

    /// Closes TCP with a reset and no close_notify.
    func abort() {
        _ = rg_set_linger_zero(fd)
        shutdown(fd, Int32(SHUT_RDWR))
    }
}
