import GatewayWebSocket
import Testing

@Suite("WebSocket binding")
struct WebSocketBindingTests {
    // PROTOCOL.md section 11: a SETTINGS frame and a PING.
    static let settings: [UInt8] = [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0x08, 0x01]
    static let ping: [UInt8] = [0, 0, 0, 8, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]

    @Test("a message holds exactly one protocol frame")
    func oneFrame() {
        #expect(WebSocketBinding.isOneFrame(Self.settings))
        #expect(WebSocketBinding.isOneFrame(Self.ping))
        #expect(WebSocketBinding.isOneFrame([0, 0, 0, 0, 3, 0, 0, 0, 0, 1]))
        #expect(!WebSocketBinding.isOneFrame(Self.settings + Self.ping))
        #expect(!WebSocketBinding.isOneFrame(Self.settings.dropLast()))
        #expect(!WebSocketBinding.isOneFrame([0, 0, 0, 0, 3]))
        #expect(!WebSocketBinding.isOneFrame(Array("RGW1\r\n\r\n".utf8)))
    }

    @Test("frames written back to back become one message each; a partial frame waits")
    func split() {
        var bytes = Self.settings + Self.ping + Array(Self.settings.prefix(5))
        #expect(WebSocketBinding.splitFrames(&bytes) == [Self.settings, Self.ping])
        #expect(bytes == Array(Self.settings.prefix(5)))
        bytes += Self.settings.dropFirst(5)
        #expect(WebSocketBinding.splitFrames(&bytes) == [Self.settings])
        #expect(bytes.isEmpty)
    }
}
