import GatewayTestKit
import Foundation
import GatewayWire
import GatewayWireConformance
import Testing

/// The committed fuzz corpus and seeded random mutations, through every
/// decoder: each input either decodes or fails with a WireError, and what
/// decodes re-encodes stably. (`make fuzz` explores much further.)
@Suite("Decoder robustness")
struct DecoderRobustnessTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCorpus")
    static let messageTypes: [any ProtobufMessage.Type] = ReaderGatewayV1.messageTypes + ReaderGatewayTestingV1.messageTypes

    static func files(_ directory: String) throws -> [[UInt8]] {
        let folder = corpus.appendingPathComponent(directory)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
            try [UInt8](Data(contentsOf: folder.appendingPathComponent($0)))
        }
    }

    /// Decodes `bytes` as `type`; if it decodes, encoding must be stable.
    static func check<Message: ProtobufMessage>(_ type: Message.Type, _ bytes: [UInt8]) -> Bool {
        do {
            let message = try Message(serializedBytes: bytes)
            let encoded = message.serializedBytes()
            let again = try Message(serializedBytes: encoded)
            return again.serializedBytes() == encoded
        } catch is WireError {
            return true
        } catch {
            return false
        }
    }

    static func feedServer(_ bytes: [UInt8], chunk: Int) -> FrameConnection.State {
        var connection = FrameConnection(configuration: ConnectionConfiguration(role: .server), now: WireTime(nanoseconds: 0))
        _ = connection.receive(FrameHeader.clientPreface, now: WireTime(nanoseconds: 0))
        var offset = 0
        while offset < bytes.count, connection.state != .closed {
            let end = min(bytes.count, offset + chunk)
            for event in connection.receive(Array(bytes[offset..<end]), now: WireTime(nanoseconds: 0)) {
                if case .message(let id, let payload) = event { connection.messageConsumed(id, byteCount: payload.count) }
            }
            offset = end
        }
        return connection.state
    }

    @Test("the message corpus decodes as every type without a trap")
    func messageCorpus() throws {
        let inputs = try Self.files("message")
        #expect(!inputs.isEmpty)
        for input in inputs {
            for type in Self.messageTypes {
                let stable = Self.check(type, Array(input.dropFirst()))
                #expect(stable, "\(type.protoMessageName)")
            }
        }
    }

    @Test("the frame corpus goes through a server connection in any chunking")
    func frameCorpus() throws {
        let inputs = try Self.files("frame")
        #expect(!inputs.isEmpty)
        for input in inputs {
            for chunk in [1, 7, 4096] {
                _ = Self.feedServer(Array(input.dropFirst()), chunk: chunk)
            }
        }
        // The committed conversation is valid: it must not close the connection.
        let conversation = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent("frame/conversation")))
        let afterPreface = Array(conversation.dropFirst(1 + FrameHeader.clientPreface.count))
        #expect(Self.feedServer(afterPreface, chunk: 3) != .closed)
    }

    @Test("seeded random mutations of valid messages never trap")
    func mutations() throws {
        var generator = SplitMix64(seed: 0x5EED)
        let seeds = try Self.files("message").map { Array($0.dropFirst()) }
        for round in 0..<3000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0...(round % 4) {
                guard !bytes.isEmpty else { break }
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: index)
                }
            }
            let type = Self.messageTypes[round % Self.messageTypes.count]
            let stable = Self.check(type, bytes)
            #expect(stable, "\(type.protoMessageName) round \(round)")
        }
    }
}
