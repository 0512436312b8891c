@testable import GatewayService
import GatewayWire
import Testing

/// An online reader's heartbeat is decoded as the heartbeat alone when the uplink is nothing
/// else (``ReaderLinkService/onlyHeartbeat(in:)``): the same heartbeat the whole decode gives,
/// and every other message left to the whole decode.
@Suite("Local rules: heartbeat uplinks")
struct HeartbeatUplinkRuleTests {
    static func uplink(_ heartbeat: ReaderGatewayV1.ReaderHeartbeat) -> [UInt8] {
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .heartbeat(heartbeat)
        return uplink.serializedBytes()
    }

    static func wholeHeartbeat(_ bytes: [UInt8]) -> ReaderGatewayV1.ReaderHeartbeat? {
        guard case .heartbeat(let heartbeat)? = (try? ReaderGatewayV1.ReaderUplink(serializedBytes: bytes))?.message else { return nil }
        return heartbeat
    }

    @Test func aHeartbeatDecodesAsTheWholeUplinkDecodesIt() throws {
        var full = ReaderGatewayV1.ReaderHeartbeat()
        full.activity = .collecting
        full.batteryLevel = 0.42
        full.ipAddress = "10.1.2.3"
        full.charging = true
        full.softwareVersion = "2.31.0"
        for heartbeat in [full, ReaderGatewayV1.ReaderHeartbeat()] {
            let bytes = Self.uplink(heartbeat)
            let alone = try #require(ReaderLinkService.onlyHeartbeat(in: bytes))
            #expect(alone == heartbeat)
            #expect(alone == Self.wholeHeartbeat(bytes))
        }
    }

    @Test func otherMessagesAreLeftToTheWholeDecode() throws {
        var hello = ReaderGatewayV1.ReaderUplink()
        var helloMessage = ReaderGatewayV1.ReaderHello()
        helloMessage.serialNumber = "WPE-1"
        hello.message = .hello(helloMessage)
        #expect(ReaderLinkService.onlyHeartbeat(in: hello.serializedBytes()) == nil)
        var result = ReaderGatewayV1.ReaderUplink()
        var answer = ReaderGatewayV1.CommandResult()
        answer.commandID = 7
        result.message = .commandResult(answer)
        #expect(ReaderLinkService.onlyHeartbeat(in: result.serializedBytes()) == nil)

        // A heartbeat followed by a field this version does not know: the whole decode keeps it.
        var beat = ReaderGatewayV1.ReaderHeartbeat()
        beat.batteryLevel = 0.8
        let withUnknown = Self.uplink(beat) + [0xA8, 0x06, 0x01]
        #expect(ReaderLinkService.onlyHeartbeat(in: withUnknown) == nil)
        #expect(Self.wholeHeartbeat(withUnknown) == beat)

        // A heartbeat longer than a one-byte length.
        var long = ReaderGatewayV1.ReaderHeartbeat()
        long.softwareVersion = String(repeating: "9", count: 200)
        let longBytes = Self.uplink(long)
        #expect(ReaderLinkService.onlyHeartbeat(in: longBytes) == nil)
        #expect(Self.wholeHeartbeat(longBytes) == long)
    }

    @Test func aHeartbeatThatDoesNotDecodeIsMalformedAsTheWholeUplinkWouldBe() {
        // Field 2 holding a string field (ip_address) whose length runs past the end.
        let bytes: [UInt8] = [0x12, 0x02, 0x1A, 0x05]
        #expect(ReaderLinkService.onlyHeartbeat(in: bytes) == .some(nil))
        #expect((try? ReaderGatewayV1.ReaderUplink(serializedBytes: bytes)) == nil)
    }
}
