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
        if isOpen {
            decoder.append(bytes)
        } else {
            head.append(contentsOf: bytes)
            guard let end = Self.endOfHead(head) else {
                if head.count > 16_384 { throw WebSocketClientError("the upgrade response has no end after 16 KiB") }
                return
            }
            try Self.checkResponse(head[..<end])
            isOpen = true
            inbound.append(.opened)
            decoder.append(head[end...])
            head = []
        }
        while true {
            let frame: WebSocketFrame?
            do { frame = try decoder.nextFrame(maxDataPayload: 1 << 24) } catch {
                throw WebSocketClientError("the server's frames broke RFC 6455: \(error)")
            }
            guard let frame else { return }
            switch frame.opcode {
            case .binary: inbound.append(.message(frame.payload))
            case .ping: inbound.append(.ping(frame.payload))
            case .close:
                let code = frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : 1005
                inbound.append(.closed(WebSocketCloseCode(rawValue: code)))
            case .pong: continue
            default: throw WebSocketClientError("unexpected opcode \(frame.opcode.rawValue) (the binding sends one frame per binary message)")
            }
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
