import FuzzSupport
import GatewayWebSocket

/// Writes the starting corpus: `handshake/` holds upgrade requests (valid and each kind of
/// refusal), `frames/` holds client frame sequences; the first byte of each is the chunk size.
func writeSeeds(to directory: String) {
    let valid = "GET /readergateway/v1/websocket HTTP/1.1\r\nHost: gateway.example:7443\r\nUpgrade: websocket\r\n"
        + "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        + "Origin: https://pos.example\r\nSec-WebSocket-Protocol: chat, readergateway.v1\r\n\r\n"
    FuzzReplay.writeInput("\(directory)/handshake/valid", [7] + Array(valid.utf8))
    FuzzReplay.writeInput("\(directory)/handshake/bad-version", [255] + Array(valid.replacing("Version: 13", with: "Version: 8").utf8))
    FuzzReplay.writeInput("\(directory)/handshake/bad-origin", [3] + Array(valid.replacing("pos.example", with: "evil.example").utf8))
    FuzzReplay.writeInput("\(directory)/handshake/post", [255] + Array(valid.replacing("GET", with: "POST").utf8))

    let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
    var conversation: [UInt8] = [5]
    WebSocketFrameEncoder.append(WebSocketFrame(opcode: .binary, payload: [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 8, 1]), maskingKey: key, to: &conversation)
    WebSocketFrameEncoder.append(WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2, 3]), maskingKey: key, to: &conversation)
    WebSocketFrameEncoder.append(WebSocketFrame(opcode: .ping, payload: Array("Hello".utf8)), maskingKey: key, to: &conversation)
    WebSocketFrameEncoder.append(WebSocketFrame(opcode: .continuation, payload: [4, 5]), maskingKey: key, to: &conversation)
    WebSocketFrameEncoder.append(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 9, count: 300)), maskingKey: key, to: &conversation)
    WebSocketFrameEncoder.append(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8] + Array("bye".utf8)), maskingKey: key, to: &conversation)
    FuzzReplay.writeInput("\(directory)/frames/conversation", conversation)
    FuzzReplay.writeInput("\(directory)/frames/unmasked", [255] + WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: [1])))
    FuzzReplay.writeInput("\(directory)/frames/text", [255] + WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("hi".utf8)), maskingKey: key))
}
