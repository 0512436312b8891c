import CGatewayOpenSSL
import Foundation
import Testing

/// The raw peer's names for how a read ended, which the wire tests' waits depend on.
@Suite("the raw frame peer: how a read ended")
struct RawFramePeerTests {
    /// A socket timeout read as a failure ended `readFrame(waitingWhile:)` at the first
    /// timeout instead of waiting past it (`WatchFleetTests`' slow watcher on a loaded machine:
    /// "SSL_read: SSL error 2, errno 11").
    @Test("a receive timeout is a timeout whether OpenSSL reports a read to retry or a system call error; the other ends keep their names")
    func readEnds() {
        #expect(RawFramePeer.readEnd(sslError: SSL_ERROR_WANT_READ, errno: EAGAIN, reason: nil) == .timedOut)
        #expect(RawFramePeer.readEnd(sslError: SSL_ERROR_SYSCALL, errno: EWOULDBLOCK, reason: nil) == .timedOut)
        #expect(RawFramePeer.readEnd(sslError: SSL_ERROR_ZERO_RETURN, errno: 0, reason: nil) == .closeNotify)
        #expect(RawFramePeer.readEnd(sslError: SSL_ERROR_SYSCALL, errno: 0, reason: nil) == .endWithoutCloseNotify)
        #expect(RawFramePeer.readEnd(sslError: SSL_ERROR_SSL, errno: 0, reason: "unexpected eof while reading") == .endWithoutCloseNotify)
        #expect(RawFramePeer.readEnd(sslError: SSL_ERROR_WANT_READ, errno: 0, reason: nil) == .failed("SSL_read: SSL error 2, errno 0"))
        #expect(RawFramePeer.readEnd(sslError: SSL_ERROR_SSL, errno: 0, reason: "bad record mac") == .failed("SSL_read: SSL error 1, errno 0"))
    }
}
