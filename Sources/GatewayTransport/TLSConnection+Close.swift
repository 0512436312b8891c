import CGatewayLinux
import CGatewayOpenSSL
import Glibc

extension TLSConnection {
    /// Closes the connection.
    ///
    /// Graceful: queued bytes are flushed, close_notify is sent and the peer's close_notify is
    /// awaited up to `ConnectionLimits.closeTimeout`. Abrupt: the socket is closed at once.
    /// The handler then receives `connectionClosed(.closedLocally)`.
    public func close(graceful: Bool = true) {
        assert(loop.inEventLoop, "TLSConnection.close must run on its event loop")
        switch state {
        case .closed:
            return
        case .closing:
            if !graceful { finish(pendingCloseReason) }
        case .connecting, .handshaking:
            finish(.closedLocally)
        case .active:
            if graceful {
                beginClose(reason: .closedLocally)
            } else {
                finish(.closedLocally)
            }
        }
    }

    /// Starts a graceful close with `reason` reported at the end.
    func beginClose(reason: CloseReason) {
        guard state == .active else { return }
        pendingCloseReason = reason
        state = .closing
        setDeadline(rg_monotonic_nanoseconds() &+ limits.closeTimeout.nanoseconds)
        if bufferedBytes > 0 {
            closeAfterFlush = true
            flush()
        } else {
            sendCloseNotify()
        }
    }

    /// Sends close_notify and half-closes TCP; the connection then waits for the peer to finish.
    func sendCloseNotify() {
        guard state == .closing, !closeNotifySent else { return }
        closeNotifySent = true
        ERR_clear_error()
        let rc = SSL_shutdown(ssl)
        if rc == 1 || pendingCloseReason == .closedByPeer {
            // Both close_notify alerts are exchanged: nothing more to wait for.
            finish(pendingCloseReason)
            return
        }
        if rc < 0 {
            _ = OpenSSLErrors.drain()
            finish(pendingCloseReason)
            return
        }
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        drainWhileClosing()
    }

    /// Reads and discards until the peer's close_notify or end of stream.
    func drainWhileClosing() {
        guard state == .closing, closeNotifySent else { return }
        let buffer = loop.readBuffer
        for _ in 0..<limits.readsPerTick {
            ERR_clear_error()
            let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
            if count > 0 { continue }
            let error = SSL_get_error(ssl, count)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
            _ = OpenSSLErrors.drain()
            finish(pendingCloseReason)
            return
        }
        scheduleContinueDraining()
    }

    private func scheduleContinueDraining() {
        loop.execute { [self] in self.drainWhileClosing() }
    }

    /// Closes the socket, frees the OpenSSL connection, updates the server counters and tells
    /// the handler. Idempotent.
    func finish(_ reason: CloseReason) {
        let previous = state
        guard previous != .closed else { return }
        state = .closed
        if previous == .connecting || previous == .handshaking {
            if let counters {
                counters.handshaking.subtract(1, ordering: .relaxed)
                counters.handshakes.failed(reason == .handshakeTimeout ? .timeout : handshakeFailure)
            }
            leaveAdmission()
        } else if countedWithCertificate {
            countedWithCertificate = false
            counters?.handshakes.openWithCertificate.subtract(1, ordering: .relaxed)
        }
        counters?.connectionClosed()
        loop.deregister(fd: fd)
        Glibc.close(fd)
        if let sslHandle {
            SSL_free(sslHandle)
            self.sslHandle = nil
        }
        helloContext = nil
        if isServer { loopState.noteServerConnectionClosed() }
        pending = []
        pendingStart = 0
        let handler = self.handler
        self.handler = nil
        handler?.connectionClosed(reason, on: self)
    }
}
