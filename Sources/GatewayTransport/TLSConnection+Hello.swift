import CGatewayLinux
import CGatewayOpenSSL
import Glibc

/// Where a server connection's handshake counts against its listener's caps.
struct HandshakeTicket {
    let listener: Listener
    let id: UInt64
}

/// A server connection's first TLS record, waited for before OpenSSL gets involved.
///
/// A peer that connects and sends nothing, or dribbles the first bytes of a ClientHello, is what
/// a slowloris flood is made of. Until the first record (a 5-byte header and the length it
/// announces) is whole in the socket's receive queue, the connection only peeks: no `SSL`
/// object, no 17 KiB record buffer. Then OpenSSL is created on the socket and reads the record
/// itself, and the listener learns that this connection's ClientHello was answered, which puts
/// it behind every connection still waiting in the queue of those to close first
/// (`ConnectionAdmission` in GatewayCore).
///
/// A first record that is not a TLS handshake record, or announces an impossible length, is
/// handed to OpenSSL at once: it fails the handshake with the precise alert.
extension TLSConnection {
    /// Largest TLS record body (2^14 plus the allowed expansion).
    static let maxRecordBody = 16_384 + 2_048

    /// Creates the OpenSSL connection once the first record is whole; returns whether it exists.
    func awaitHelloRecord() -> Bool {
        var header = [UInt8](repeating: 0, count: 5)
        let peeked = header.withUnsafeMutableBytes { rg_socket_peek(fd, $0.baseAddress, 5) }
        if peeked == 0 {
            handshakeFailure = .closed
            finish(.handshakeFailed(TransportError(.handshakeFailed, "TLS handshake with \(peerDescription) failed: the peer closed the connection before sending a ClientHello")))
            return false
        }
        if peeked < 0 {
            let error = rg_errno()
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return false }
            handshakeFailure = error == ECONNRESET ? .closed : .internal
            finish(.handshakeFailed(TransportError(.handshakeFailed, "TLS handshake with \(peerDescription) failed", cause: OpenSSLErrors.errnoText(error))))
            return false
        }
        let isHandshakeRecord = header[0] == 0x16
        let wellFormed = peeked >= 5 && isHandshakeRecord
        if peeked < 5 && isHandshakeRecord { return false }
        if wellFormed {
            let body = Int(header[3]) << 8 | Int(header[4])
            if body <= Self.maxRecordBody && Int(rg_socket_readable_bytes(fd)) < 5 + body { return false }
        }
        return attachServerSSL()
    }

    /// Creates the server's OpenSSL connection on the socket; false when OpenSSL refused (the
    /// connection is then finished).
    private func attachServerSSL() -> Bool {
        guard let context = helloContext else { return sslHandle != nil }
        helloContext = nil
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else {
            finish(.handshakeFailed(TransportError(.handshakeFailed, "could not create a TLS connection for \(peerDescription)", cause: OpenSSLErrors.drain())))
            return false
        }
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
        // Set here rather than at accept: the server writes nothing before the hello, and a
        // flood's sockets are spared the system call.
        _ = rg_set_nodelay(fd)
        sslHandle = ssl
        readsWatched = rg_SSL_watch_reads(ssl, lastReadDrained) == 1
        if let admission { admission.listener.helloArrived(admission.id) }
        return true
    }

    /// Leaves the listener's handshake admission (handshake over, or the connection closed).
    func leaveAdmission() {
        guard let admission else { return }
        self.admission = nil
        admission.listener.handshakeLeft(admission.id)
    }
}
