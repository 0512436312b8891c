import Foundation
import GatewayWire
import Synchronization

/// A WebSocket client written from RFC 6455 and PROTOCOL.md section 15 alone, over
/// ``RawFramePeer``'s blocking TLS socket: the upgrade request by hand, masked client
/// frames packed by hand, server frames unpacked by hand. Nothing of the gateway's
/// `GatewayWebSocket` module is used, so a test sees the bytes a browser would.
final class WebSocketPeer: Sendable {
    /// One WebSocket frame from the server.
    struct Message: Sendable, CustomStringConvertible {
        var opcode: UInt8
        var payload: [UInt8]

        /// The close frame's code (nil for other frames or an empty close).
        var closeCode: Int? {
            guard opcode == 0x8, payload.count >= 2 else { return nil }
            return Int(payload[0]) << 8 | Int(payload[1])
        }

        var description: String { "opcode 0x\(String(opcode, radix: 16)) (\(payload.count) bytes)" }
    }

    let tls: RawFramePeer
    /// Frames read while waiting for another stream's (see `nextMessage(on:as:)`).
    let setAside = Mutex<[RawFramePeer.RawFrame]>([])

    private init(tls: RawFramePeer) { self.tls = tls }

    /// Connects and sends the upgrade request; returns the peer and the response head.
    static func connect(
        port: Int, caPath: String, origin: String? = nil, path: String = "/readergateway/v1/websocket", alpn: [String] = [], timeout: Int = 30,
        cookie: String? = nil, userAgent: String? = nil
    ) async throws -> (WebSocketPeer, String) {
        let tls = try await RawFramePeer.connect(port: port, caPath: caPath, alpn: alpn, timeout: timeout)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: readergateway.v1\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        if let cookie { request += "Cookie: \(cookie)\r\n" }
        if let userAgent { request += "User-Agent: \(userAgent)\r\n" }
        request += "\r\n"
        try await tls.write(Array(request.utf8))
        let head = try await tls.readHead().mapError { RawFramePeer.Failure(description: "no response head: \($0)") }.get()
        return (WebSocketPeer(tls: tls), head)
    }

    /// Connects, upgrades (expecting the 101) and exchanges SETTINGS; returns the peer once
    /// the gateway's SETTINGS arrived.
    static func open(
        port: Int, caPath: String, origin: String? = GatewayHarness.allowedOrigin, timeout: Int = 30, cookie: String? = nil, userAgent: String? = nil
    ) async throws -> WebSocketPeer {
        let (peer, head) = try await connect(port: port, caPath: caPath, origin: origin, timeout: timeout, cookie: cookie, userAgent: userAgent)
        guard head.hasPrefix("HTTP/1.1 101 ") else { throw RawFramePeer.Failure(description: "the upgrade was refused: \(head)") }
        try await peer.sendFrame(RawWire.settings())
        let settings = try await peer.readProtocolFrame()
        guard settings.type == 0x0 else { throw RawFramePeer.Failure(description: "the first frame is not SETTINGS: \(settings)") }
        return peer
    }

    /// A masked client frame (the mask key is fixed: tests need no secrecy).
    static func clientFrame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126: bytes.append(maskBit | UInt8(payload.count))
        case ..<65536: bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        default: bytes += [maskBit | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        bytes += key
        bytes += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        return bytes
    }

    /// One protocol frame in one binary message.
    func sendFrame(_ frame: [UInt8]) async throws {
        try await tls.write(Self.clientFrame(opcode: 0x2, frame))
    }

    /// Raw WebSocket bytes.
    func send(_ bytes: [UInt8]) async throws {
        try await tls.write(bytes)
    }

    /// The next WebSocket frame from the server (which must not be masked).
    func readMessage() async throws -> Message {
        let head = try await tls.read(exactly: 2).mapError { RawFramePeer.Failure(description: "no frame: \($0)") }.get()
        guard head[1] & 0x80 == 0 else { throw RawFramePeer.Failure(description: "the server masked a frame") }
        var length = Int(head[1] & 0x7f)
        if length >= 126 {
            let extended = try await tls.read(exactly: length == 126 ? 2 : 8).mapError { RawFramePeer.Failure(description: "\($0)") }.get()
            length = extended.reduce(0) { $0 << 8 | Int($1) }
        }
        let payload = try await tls.read(exactly: length).mapError { RawFramePeer.Failure(description: "\($0)") }.get()
        return Message(opcode: head[0] & 0x0f, payload: payload)
    }

    /// The next binary message, as the one protocol frame it must hold.
    func readProtocolFrame() async throws -> RawFramePeer.RawFrame {
        let message = try await readMessage()
        guard message.opcode == 0x2 else { throw RawFramePeer.Failure(description: "expected a binary message, got \(message) \(message.closeCode.map { "close \($0)" } ?? "")") }
        let bytes = message.payload
        guard bytes.count >= 10 else { throw RawFramePeer.Failure(description: "a binary message of \(bytes.count) bytes holds no frame") }
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard bytes.count == 10 + length else { throw RawFramePeer.Failure(description: "a binary message of \(bytes.count) bytes does not hold exactly one frame of \(length)") }
        let stream = UInt32(bytes[6]) << 24 | UInt32(bytes[7]) << 16 | UInt32(bytes[8]) << 8 | UInt32(bytes[9])
        return RawFramePeer.RawFrame(type: bytes[4], flags: bytes[5], streamID: stream, payload: Array(bytes[10...]))
    }

    /// Reads messages until a close frame; returns the binary messages' frames before it and the close code.
    func readUntilClose() async throws -> (frames: [RawFramePeer.RawFrame], code: Int?) {
        var frames: [RawFramePeer.RawFrame] = []
        while true {
            let message = try await readMessage()
            switch message.opcode {
            case 0x8:
                return (frames, message.closeCode)
            case 0x2:
                let bytes = message.payload
                let stream = UInt32(bytes[6]) << 24 | UInt32(bytes[7]) << 16 | UInt32(bytes[8]) << 8 | UInt32(bytes[9])
                frames.append(RawFramePeer.RawFrame(type: bytes[4], flags: bytes[5], streamID: stream, payload: Array(bytes[10...])))
            default:
                continue
            }
        }
    }

    /// Answers the server's close with a close of `code`.
    func sendClose(_ code: Int) async throws {
        try await tls.write(Self.clientFrame(opcode: 0x8, [UInt8(code >> 8), UInt8(code & 0xff)]))
    }
}
