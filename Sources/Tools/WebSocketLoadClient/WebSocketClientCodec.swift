import GatewayWebSocket

/// The client side of the WebSocket binding for load generators (`service-bench --lanes
/// websocket`, `transport-load --mode websocket-rtt`): the upgrade request, the 101 check,
/// then masked binary messages out and unmasked ones in, on the repository's own frame
/// encoder and decoder. Pure: bytes in, messages out; the caller owns the socket.
///
/// ```swift
/// var codec = WebSocketClientCodec()
/// connection.write(WebSocketClientCodec.upgradeRequest(host: "127.0.0.1:8443"))
/// // readable bytes:
/// try codec.receive(bytes, into: &inbound)   // .opened once, then .message(payload) …
/// // or, for a frame connection fed once per read: the messages back to back in `frames`
/// try codec.receive(bytes, appendingMessagesTo: &frames, into: &inbound)
/// codec.appendMessage(payload, to: &outbound); connection.write(outbound)
/// ```
public struct WebSocketClientCodec: Sendable {
    /// What arrived.
    public enum Inbound: Sendable, Hashable {
        /// The 101 arrived and checked out: messages may be sent now.
        case opened
        /// One binary message.
        case message([UInt8])
        /// A ping; answer it with ``appendPong(_:to:)``.
        case ping([UInt8])
        /// The server closed the WebSocket with this code.
        case closed(WebSocketCloseCode)
    }

    /// The `Sec-WebSocket-Key` every request carries (the value of RFC 6455's example: a load
    /// generator has no use for a fresh nonce).
    public static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    /// Whether the 101 arrived.
    public private(set) var isOpen = false
    private var head: [UInt8] = []
    private var decoder = WebSocketFrameDecoder(role: .client)
    /// xorshift32 state for the masking keys (RFC 6455 wants them unpredictable to
    /// intermediaries; for load, a fresh key per frame costs what a browser's does).
    private var maskState: UInt32

    public init(seed: UInt32 = 0x9E37_79B9) {
        maskState = seed == 0 ? 1 : seed
    }

    /// The upgrade request of the binding (PROTOCOL.md section 15), without an `Origin`.
    public static func upgradeRequest(host: String, path: String = WebSocketBinding.path, subprotocol: String = WebSocketBinding.subprotocol) -> [UInt8] {
        Array((
            "GET \(path) HTTP/1.1\r\n"
                + "Host: \(host)\r\n"
                + "Upgrade: websocket\r\n"
                + "Connection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\n"
                + "Sec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Protocol: \(subprotocol)\r\n\r\n"
        ).utf8)
    }

    /// Bytes read from the connection: the 101 first, then frames. Appends what arrived to
    /// `inbound`; throws when the server refused the upgrade or broke the protocol.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, into inbound: inout [Inbound]) throws(WebSocketClientError) {
        try receive(bytes) { arrival in
            switch arrival {
            case .opened: inbound.append(.opened)
            case .binary(let payload): inbound.append(.message(Array(payload)))
            case .control(let item): inbound.append(item)
            }
        }
    }

    /// ``receive(_:into:)`` with the binary messages appended to `messages` back to back
    /// (after what it holds) instead of as ``Inbound/message(_:)``s: on the binding each is one
    /// protocol frame, so `messages` holds what a raw connection would have read, for one pass
    /// of the caller's frame connection. A frame that arrived whole in `bytes` is copied once,
    /// from the read to `messages`; one split across reads waits in the decoder. Everything
    /// else (`.opened`, pings, the close) is appended to `inbound`.
    public mutating func receive(
        _ bytes: UnsafeRawBufferPointer, appendingMessagesTo messages: inout [UInt8], into inbound: inout [Inbound]
    ) throws(WebSocketClientError) {
        try receive(bytes) { arrival in
            switch arrival {
            case .opened: inbound.append(.opened)
            case .binary(let payload): messages.append(contentsOf: payload)
            case .control(let item): inbound.append(item)
            }
        }
    }

    /// One thing a read brought, handed over where it lies (valid only during the call).
    private enum Arrival {
        case opened
        case binary(UnsafeRawBufferPointer)
        case control(Inbound)
    }

    /// The largest message a load client takes.
    private static let maxMessage = 1 << 24

    /// The 101 first, then every whole frame: read where it lies while the decoder holds
    /// nothing, else through the decoder's buffer; a trailing partial frame waits there.
    private mutating func receive(_ bytes: UnsafeRawBufferPointer, _ visit: (Arrival) -> Void) throws(WebSocketClientError) {
        guard isOpen else {
            head.append(contentsOf: bytes)
            guard let end = Self.endOfHead(head) else {
                if head.count > 16_384 { throw WebSocketClientError("the upgrade response has no end after 16 KiB") }
                return
            }
            try Self.checkResponse(head[..<end])
            isOpen = true
            visit(.opened)
            decoder.append(head[end...])
            head = []
            try decodeBuffered(visit)
            return
        }
        guard decoder.bufferedByteCount == 0 else {
            decoder.append(bytes)
            try decodeBuffered(visit)
            return
        }
        var offset = 0
        while true {
            let header: WebSocketFrameDecoder.Header?
            do { header = try WebSocketFrameDecoder.header(in: bytes, at: offset, role: .client, maxDataPayload: Self.maxMessage) } catch {
                throw WebSocketClientError("the server's frames broke RFC 6455: \(error)")
            }
            guard let header else { break }
            try Self.check(header.opcode)
            Self.deliver(header.opcode, UnsafeRawBufferPointer(rebasing: bytes[header.payload(at: offset)]), visit)
            offset += header.frameSize
        }
        if offset < bytes.count { decoder.append(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
    }

    /// The whole frames in the decoder's buffer.
    private mutating func decodeBuffered(_ visit: (Arrival) -> Void) throws(WebSocketClientError) {
        while true {
            let frame: WebSocketFrameDecoder.FrameInPlace?
            do { frame = try decoder.nextFrameInPlace(maxDataPayload: Self.maxMessage) } catch {
                throw WebSocketClientError("the server's frames broke RFC 6455: \(error)")
            }
            guard let frame else { return }
            try Self.check(frame.opcode)
            decoder.withPayload(of: frame) { Self.deliver(frame.opcode, $0, visit) }
        }
    }

    /// The binding's server sends binary messages in one frame each, pings, pongs and a close.
    private static func check(_ opcode: WebSocketOpcode) throws(WebSocketClientError) {
        switch opcode {
        case .binary, .ping, .pong, .close: return
        default: throw WebSocketClientError("unexpected opcode \(opcode.rawValue) (the binding sends one frame per binary message)")
        }
    }

    private static func deliver(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, _ visit: (Arrival) -> Void) {
        switch opcode {
        case .binary: visit(.binary(payload))
        case .ping: visit(.control(.ping(Array(payload))))
        case .close:
            let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1005
            visit(.control(.closed(WebSocketCloseCode(rawValue: code))))
        default: break  // a pong: nothing to do
        }
    }

    /// Appends one masked binary message holding `payload`.
    public mutating func appendMessage(_ payload: [UInt8], to buffer: inout [UInt8]) {
        payload.withUnsafeBytes { appendMasked(.binary, $0, to: &buffer) }
    }

    /// Appends a masked pong answering a ping.
    public mutating func appendPong(_ payload: [UInt8], to buffer: inout [UInt8]) {
        payload.withUnsafeBytes { appendMasked(.pong, $0, to: &buffer) }
    }

    /// Appends the protocol frames in `protocolBytes` (as a `FrameConnection` writes them,
    /// its preface already removed) as one message each; a trailing partial frame stays.
    public mutating func appendProtocolFrames(_ protocolBytes: inout [UInt8], to buffer: inout [UInt8]) {
        var offset = 0
        protocolBytes.withUnsafeBytes { bytes in
            while bytes.count - offset >= WebSocketBinding.frameHeaderSize {
                var length = 0
                for index in offset..<offset + 4 { length = length << 8 | Int(bytes[index]) }
                let end = offset + WebSocketBinding.frameHeaderSize + length
                guard end <= bytes.count else { break }
                appendMasked(.binary, UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), to: &buffer)
                offset = end
            }
        }
        if offset == protocolBytes.count { protocolBytes.removeAll(keepingCapacity: true) } else { protocolBytes.removeFirst(offset) }
    }

    /// The frame's header (``WebSocketFrameEncoder``), a fresh masking key, and the payload
    /// XORed with it eight bytes at a time (a browser masks as cheaply).
    private mutating func appendMasked(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        WebSocketFrameEncoder.appendHeader(opcode: opcode, masked: true, payloadCount: payload.count, to: &buffer)
        let key = nextMaskingKey()
        withUnsafeBytes(of: key) { buffer.append(contentsOf: $0) }
        let start = buffer.count
        buffer.append(contentsOf: payload)
        let wideKey = UInt64(key) | UInt64(key) << 32
        buffer.withUnsafeMutableBytes { bytes in
            var index = start
            while index + 8 <= bytes.count {
                bytes.storeBytes(of: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ wideKey, toByteOffset: index, as: UInt64.self)
                index += 8
            }
            withUnsafeBytes(of: key) { keyBytes in
                while index < bytes.count {
                    bytes[index] ^= keyBytes[(index - start) & 3]
                    index += 1
                }
            }
        }
    }

    /// The next masking key, as it lies in memory (its bytes go on the wire in that order).
    private mutating func nextMaskingKey() -> UInt32 {
        maskState ^= maskState << 13
        maskState ^= maskState >> 17
        maskState ^= maskState << 5
        return maskState
    }

    /// The index just past the blank line ending the response head, or nil.
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// A 101 naming the binding's subprotocol with the accept value of ``key``.
    private static func checkResponse(_ head: ArraySlice<UInt8>) throws(WebSocketClientError) {
        let text = String(decoding: head, as: UTF8.self)
        let lines = text.split(separator: "\r\n")
        guard let status = lines.first, status.hasPrefix("HTTP/1.1 101") else {
            throw WebSocketClientError("the upgrade was refused: \(lines.first ?? "no status line")")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingSpaces()
        }
        guard fields["sec-websocket-accept"] == WebSocketHandshake.acceptValue(forKey: key) else {
            throw WebSocketClientError("the 101 carries a wrong Sec-WebSocket-Accept (\(fields["sec-websocket-accept"] ?? "none"))")
        }
        guard fields["sec-websocket-protocol"] == WebSocketBinding.subprotocol else {
            throw WebSocketClientError("the 101 did not select the subprotocol \(WebSocketBinding.subprotocol)")
        }
    }
}

/// Why a load client's WebSocket failed.
public struct WebSocketClientError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
