import CGatewayLinux
import CGatewayOpenSSL
import Glibc

extension TLSConnection {
    // MARK: reading

    /// Reads and delivers decrypted bytes until OpenSSL wants more from the socket, the read
    /// budget for this tick is spent, or reading is paused by backpressure.
    ///
    /// With `mayStopAtShortRead` (a readiness edge without the peer's close), it also stops
    /// once OpenSSL's last read(2) left the socket empty and OpenSSL buffers nothing more:
    /// edge-triggered epoll reports whatever arrives later as a new edge, so the read that
    /// would only return EAGAIN (a syscall and OpenSSL's error path, per message) is saved.
    func readAvailable(mayStopAtShortRead: Bool = false) {
        var budget = limits.readsPerTick
        let buffer = loop.readBuffer
        while state == .active && !readPaused && !readWantsWrite {
            if budget == 0 {
                scheduleContinueReading()
                return
            }
            budget -= 1
            ERR_clear_error()
            lastReadDrained.pointee = 0
            let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
            if count > 0 {
                lastActivity = loop.now
                if lastActivity >= ticketRenewalDue { renewTicket() }
                let drained = mayStopAtShortRead && readsWatched && lastReadDrained.pointee != 0 && SSL_has_pending(ssl) == 0
                handler?.bytesReceived(UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(count)), on: self)
                if drained { return }
                continue
            }
            let error = SSL_get_error(ssl, count)
            switch error {
            case SSL_ERROR_WANT_READ:
                return
            case SSL_ERROR_WANT_WRITE:
                readWantsWrite = true
                return
            case SSL_ERROR_ZERO_RETURN:
                pendingCloseReason = .closedByPeer
                beginClose(reason: .closedByPeer)
                return
            default:
                finish(readFailure(sslError: error))
                return
            }
        }
    }

    func readFailure(sslError: Int32) -> CloseReason {
        let queue = OpenSSLErrors.drain()
        if sslError == SSL_ERROR_SYSCALL {
            let saved = rg_errno()
            if queue == nil && (saved == 0 || saved == EAGAIN) { return .peerClosedAbruptly }
            if saved == ECONNRESET || saved == EPIPE {
                return .ioError(TransportError(.ioError, "connection to \(peerDescription) was reset by the peer", cause: OpenSSLErrors.errnoText(saved)))
            }
        }
        if queue?.contains("unexpected eof") == true { return .peerClosedAbruptly }
        return .ioError(TransportError(.ioError, "TLS error on the connection to \(peerDescription); the connection was closed", cause: queue))
    }

    func scheduleContinueReading() {
        guard !continueReadingScheduled else { return }
        continueReadingScheduled = true
        loopState.continueReading.append(self)
    }

    // MARK: writing

    /// Queues bytes for the peer; they are sent (batched) before the loop next sleeps.
    ///
    /// Returns false if the connection is not active (the bytes are dropped). Over the
    /// high-water mark the connection turns unwritable (see ``ConnectionLimits``); over the
    /// hard limit it is closed.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        assert(loop.inEventLoop, "TLSConnection.write must run on its event loop")
        guard state == .active, !closeAfterFlush else { return false }
        if pendingStart > 0 && pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        }
        pending.append(contentsOf: bytes)
        if !flushScheduled {
            flushScheduled = true
            loopState.flushList.append(self)
        }
        checkHighWater()
        return state == .active
    }

    /// Queues bytes for the peer (see ``write(_:)-(UnsafeRawBufferPointer)``).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write($0) }
    }

    private func checkHighWater() {
        let queued = bufferedBytes
        if queued > limits.writeBufferHardLimit {
            finish(.writeBufferOverflow)
            return
        }
        guard isWritableFlag, queued > limits.writeBufferHighWater else { return }
        if limits.slowPeerPolicy == .close {
            finish(.writeBufferOverflow)
            return
        }
        isWritableFlag = false
        readPaused = true
        handler?.writabilityChanged(false, on: self)
    }

    /// Hands queued bytes to OpenSSL until they are all written or the socket is full.
    func flush() {
        guard state == .active || state == .closing else { return }
        if bufferedBytes > 0 { noteBuffersInUse() }
        while bufferedBytes > 0 {
            ERR_clear_error()
            let written = pending.withUnsafeBytes { raw -> Int32 in
                let remaining = raw.count - pendingStart
                return SSL_write(ssl, raw.baseAddress! + pendingStart, Int32(min(remaining, Int(Int32.max))))
            }
            if written > 0 {
                pendingStart += Int(written)
                lastActivity = loop.now
                continue
            }
            let error = SSL_get_error(ssl, written)
            if error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ { break }
            finish(readFailure(sslError: error))
            return
        }
        if bufferedBytes == 0 {
            if pending.capacity > 64 * 1024 {
                pending = []
            } else {
                pending.removeAll(keepingCapacity: true)
            }
            pendingStart = 0
        } else if pendingStart > 64 * 1024 && pendingStart * 2 > pending.count {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        if !isWritableFlag && bufferedBytes <= limits.writeBufferLowWater && state == .active {
            isWritableFlag = true
            readPaused = false
            handler?.writabilityChanged(true, on: self)
            // Edges that arrived while paused were not acted on: look again next tick.
            if state == .active { scheduleContinueReading() }
        }
        if state == .closing && bufferedBytes == 0 && closeAfterFlush {
            closeAfterFlush = false
            sendCloseNotify()
        }
    }
}
