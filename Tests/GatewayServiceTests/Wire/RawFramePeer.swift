import GatewayTestKit
import CGatewayLinux
import CGatewayOpenSSL
import Foundation
import GatewayWire

/// A client written the way a peer in another language writes one from `proto/PROTOCOL.md`
/// alone: a blocking TLS socket on OpenSSL (what Python's `ssl` wraps), frames packed and
/// unpacked by hand (section 2), control payloads decoded with the generated messages.
/// Nothing of the gateway's own transport or frame layer is used, so a test built on it
/// sees exactly the bytes another implementation would.
///
/// Every blocking call runs on a `Thread` of its own (never on Swift's cooperative pool)
/// and is bounded by a socket timeout, which only limits how long a failing test hangs.
///
/// `@unchecked Sendable`: `ssl` and the socket are used by one blocking operation at a
/// time; each method returns only after its thread finished, and a test awaits each call
/// before the next.
final class RawFramePeer: @unchecked Sendable {
    /// One frame as read off the wire.
    struct RawFrame: Sendable, CustomStringConvertible {
        var type: UInt8
        var flags: UInt8
        var streamID: UInt32
        var payload: [UInt8]

        var description: String { "type 0x\(String(type, radix: 16)) flags 0x\(String(flags, radix: 16)) stream \(streamID) (\(payload.count) bytes)" }
    }

    /// How the server's side of the stream ended.
    enum End: Error, Equatable, CustomStringConvertible {
        /// TLS close_notify: the server closed on purpose.
        case closeNotify
        /// TCP ended without close_notify (a crash, or a close that skipped TLS).
        case endWithoutCloseNotify
        /// The socket timeout passed with nothing to read.
        case timedOut
        /// More frame bytes came where the end was expected.
        case moreBytes(Int)
        /// TLS or the socket failed.
        case failed(String)

        var description: String {
            switch self {
            case .closeNotify: "close_notify"
            case .endWithoutCloseNotify: "end of TCP stream without close_notify"
            case .timedOut: "nothing read within the socket timeout"
            case .moreBytes(let count): "\(count) more bytes instead of the end"
            case .failed(let why): "failure: \(why)"
            }
        }
    }

    /// The connection could not be set up, or a read did not find what it expected.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let fd: Int32
    private let context: OpaquePointer
    private let ssl: OpaquePointer

    private init(fd: Int32, context: OpaquePointer, ssl: OpaquePointer) {
        self.fd = fd
        self.context = context
        self.ssl = ssl
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
        close(fd)
    }

    /// Connects to `127.0.0.1:port` and completes the TLS handshake, trusting `caPath`,
    /// offering the ALPN protocols `alpn` (none when empty).
    static func connect(port: Int, caPath: String, alpn: [String] = [], timeout: Int = 30) async throws -> RawFramePeer {
        let result = await onOwnThread("raw-frame-peer") { () -> Result<RawFramePeer, Failure> in
            var storage = sockaddr_storage()
            var length = socklen_t(0)
            guard rg_make_sockaddr("127.0.0.1", Int32(port), &storage, &length) == 0 else { return .failure(Failure(description: "bad address")) }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return .failure(Failure(description: "socket: errno \(rg_errno())")) }
            var limit = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            let connected = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
            }
            guard connected == 0 else {
                close(fd)
                return .failure(Failure(description: "connect: errno \(rg_errno())"))
            }
            let context = SSL_CTX_new(TLS_client_method())!
            SSL_CTX_load_verify_locations(context, caPath, nil)
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            if !alpn.isEmpty {
                let wire = alpn.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
                SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count))
            }
            let ssl = SSL_new(context)!
            SSL_set_fd(ssl, fd)
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), "127.0.0.1")
            let peer = RawFramePeer(fd: fd, context: context, ssl: ssl)
            ERR_clear_error()
            guard SSL_connect(ssl) == 1 else { return .failure(Failure(description: "TLS handshake failed")) }
            return .success(peer)
        }
        return try result.get()
    }

    /// The ALPN protocol the server selected (nil: none).
    var selectedALPN: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Writes `bytes` with one `SSL_write` (so they leave as whole TLS records of up to 16 KiB).
    func write(_ bytes: [UInt8]) async throws {
        let written = await onOwnThread("raw-frame-peer") { [self] () -> Int32 in
            ERR_clear_error()
            return SSL_write(ssl, bytes, Int32(bytes.count))
        }
        guard written == Int32(bytes.count) else { throw Failure(description: "SSL_write wrote \(written) of \(bytes.count) bytes") }
    }

    /// Reads frames until a GOAWAY; returns the frames before it and the decoded GOAWAY.
    func readUntilGoAway() async throws -> (before: [RawFrame], goAway: ReaderGatewayV1.GoAway) {
        var before: [RawFrame] = []
        while true {
            switch await readFrame() {
            case .success(let frame) where frame.type == 0x7:
                do {
                    return (before, try ReaderGatewayV1.GoAway(serializedBytes: frame.payload))
                } catch {
                    throw Failure(description: "the GOAWAY payload did not decode: \(error)")
                }
            case .success(let frame):
                before.append(frame)
            case .failure(let end):
                throw Failure(description: "the connection ended (\(end)) without a GOAWAY; frames read: \(before)")
            }
        }
    }

    /// Reads the next frame, or how the stream ended.
    func readFrame() async -> Result<RawFrame, End> {
        await readFrame(waitingWhile: { false })
    }

    /// Reads the next frame like ``readFrame()``, but a socket timeout is waited past while
    /// `keepWaiting()` is true (the bytes read so far are kept): for a frame the test is still
    /// driving the server toward, however long a loaded machine takes; once it turns false,
    /// the socket timeout bounds the wait again (it only limits how long a failing test hangs).
    func readFrame(waitingWhile keepWaiting: @escaping @Sendable () -> Bool) async -> Result<RawFrame, End> {
        let header: [UInt8]
        switch await read(exactly: 10, waitingWhile: keepWaiting) {
        case .success(let bytes): header = bytes
        case .failure(let end): return .failure(end)
        }
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        let stream = UInt32(header[6]) << 24 | UInt32(header[7]) << 16 | UInt32(header[8]) << 8 | UInt32(header[9])
        switch await read(exactly: length, waitingWhile: keepWaiting) {
        case .success(let payload): return .success(RawFrame(type: header[4], flags: header[5], streamID: stream, payload: payload))
        case .failure(let end): return .failure(end)
        }
    }

    /// What the next read finds: `.closeNotify` when the server ended the stream properly.
    func readEnd() async -> End {
        switch await read(exactly: 1) {
        case .success: .moreBytes(1)
        case .failure(let end): end
        }
    }

    /// Reads an HTTP response head, up to and including its blank line (at most 16 KiB).
    func readHead() async -> Result<String, End> {
        await onOwnThread("raw-frame-peer") { [self] () -> Result<String, End> in
            var head: [UInt8] = []
            var byte: UInt8 = 0
            while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
                guard head.count < 16_384 else { return .failure(.failed("no end of the response head in 16 KiB")) }
                ERR_clear_error()
                let n = SSL_read(ssl, &byte, 1)
                if n == 1 {
                    head.append(byte)
                    continue
                }
                switch endOfRead(n) {
                case .failed(let why): return .failure(.failed("\(why) after \(String(decoding: head, as: UTF8.self).debugDescription)"))
                case let end: return .failure(end)
                }
            }
            return .success(String(decoding: head, as: UTF8.self))
        }
    }

    /// Reads `count` bytes. A socket timeout ends the read with `.timedOut` unless
    /// `keepWaiting()` is true then: the read goes on with the bytes it has.
    func read(exactly count: Int, waitingWhile keepWaiting: @escaping @Sendable () -> Bool = { false }) async -> Result<[UInt8], End> {
        guard count > 0 else { return .success([]) }
        return await onOwnThread("raw-frame-peer") { [self] () -> Result<[UInt8], End> in
            var bytes = [UInt8](repeating: 0, count: count)
            var filled = 0
            while filled < count {
                ERR_clear_error()
                let n = bytes.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress! + filled, Int32(count - filled)) }
                if n > 0 {
                    filled += Int(n)
                    continue
                }
                let end = endOfRead(n)
                if end == .timedOut, keepWaiting() { continue }
                return .failure(end)
            }
            return .success(bytes)
        }
    }

    /// How the `SSL_read` that returned `result` ended (called right after it, on its thread:
    /// `errno` and OpenSSL's error queue are still its own).
    private func endOfRead(_ result: Int32) -> End {
        let error = SSL_get_error(ssl, result)
        let saved = rg_errno()
        let reason = ERR_get_error()
        return Self.readEnd(sslError: error, errno: saved, reason: reason == 0 ? nil : ERR_reason_error_string(reason).map { String(cString: $0) })
    }

    /// How a failed `SSL_read` ended, from `SSL_get_error`'s answer, `errno` and OpenSSL's
    /// reason. On a blocking socket with a receive timeout, OpenSSL 3 reports the timeout as
    /// `SSL_ERROR_WANT_READ` (a read to retry) with `errno` EAGAIN, or as `SSL_ERROR_SYSCALL`
    /// with it.
    static func readEnd(sslError error: Int32, errno saved: Int32, reason: String?) -> End {
        if error == SSL_ERROR_ZERO_RETURN { return .closeNotify }
        if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_SYSCALL) && (saved == EAGAIN || saved == EWOULDBLOCK) { return .timedOut }
        if error == SSL_ERROR_SYSCALL && saved == 0 { return .endWithoutCloseNotify }
        if reason?.contains("unexpected eof") == true { return .endWithoutCloseNotify }
        return .failed("SSL_read: SSL error \(error), errno \(saved)")
    }
}

/// Frames packed by hand, as PROTOCOL.md section 2 lays them out.
enum RawWire {
    /// The client preface (section 1).
    static let preface: [UInt8] = Array("RGW1\r\n\r\n".utf8)

    /// A frame header announcing `length` payload bytes (which need not follow).
    static func header(length: UInt32, type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0) -> [UInt8] {
        [
            UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff),
            type, flags,
            UInt8(stream >> 24), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff),
        ]
    }

    /// A whole frame.
    static func frame(_ type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, _ payload: [UInt8] = []) -> [UInt8] {
        header(length: UInt32(payload.count), type: type, flags: flags, stream: stream) + payload
    }

    /// SETTINGS with `protocol_version`.
    static func settings(version: UInt32 = 1) -> [UInt8] {
        var settings = ReaderGatewayV1.Settings()
        settings.protocolVersion = version
        return frame(0x0, settings.serializedBytes())
    }

    /// What every well-behaved client writes first: the preface and its SETTINGS.
    static var opening: [UInt8] { preface + settings() }

    /// CALL_START of `method` on `stream`.
    static func callStart(stream: UInt32, method: String) -> [UInt8] {
        var start = ReaderGatewayV1.CallStart()
        start.method = method
        return frame(0x1, stream: stream, start.serializedBytes())
    }

    /// PING with 8 payload bytes.
    static func ping(_ value: UInt8, flags: UInt8 = 0, stream: UInt32 = 0) -> [UInt8] {
        frame(0x6, flags: flags, stream: stream, [0, 0, 0, 0, 0, 0, 0, value])
    }

    /// WINDOW_UPDATE of `increment` on `stream`.
    static func windowUpdate(stream: UInt32, increment: UInt32) -> [UInt8] {
        frame(0x8, stream: stream, [UInt8(increment >> 24), UInt8(increment >> 16 & 0xff), UInt8(increment >> 8 & 0xff), UInt8(increment & 0xff)])
    }
}
