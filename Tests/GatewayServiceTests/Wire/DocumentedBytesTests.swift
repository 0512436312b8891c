import Foundation
import GatewayService
import GatewayWire
import Testing

/// The bytes PROTOCOL.md prints are the bytes the gateway sends: its SETTINGS as section 11
/// shows them on the raw port and as section 15 shows them in a WebSocket message, read off
/// the gateway's real TLS port by a client written from the document (``RawFramePeer``,
/// ``WebSocketPeer``), which sends the document's own client bytes.
@Suite("PROTOCOL.md's bytes are what the gateway sends")
struct DocumentedBytesTests {
    static let protocolDocument = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../proto/PROTOCOL.md").standardizedFileURL

    @Test("section 11: the client's SETTINGS is accepted and the gateway answers with the SETTINGS printed there")
    func rawSettings() async throws {
        let document = try String(contentsOf: Self.protocolDocument, encoding: .utf8)
        let client = try Self.bytes(in: document, after: "SETTINGS (client")
        let server = try Self.bytes(in: document, after: "SETTINGS (server")
        let harness = try await GatewayHarness.start()
        do {
            let peer = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath)
            try await peer.write(RawWire.preface + client)
            let frame = try await peer.readFrame().mapError { RawFramePeer.Failure(description: "no frame: \($0)") }.get()
            let sent = RawWire.frame(frame.type, flags: frame.flags, stream: frame.streamID, frame.payload)
            #expect(Self.hex(sent) == Self.hex(server))
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    @Test("section 15: the client's masked SETTINGS is accepted and the gateway's message is the one printed there")
    func webSocketSettings() async throws {
        let document = try String(contentsOf: Self.protocolDocument, encoding: .utf8)
        let client = try Self.bytes(in: document, after: "client  82")
        let server = try Self.bytes(in: document, after: "gateway 82")
        let harness = try await GatewayHarness.start(webSocket: WebSocketCarrierConfiguration(origins: .only([GatewayHarness.allowedOrigin])))
        do {
            let (peer, head) = try await WebSocketPeer.connect(port: harness.port, caPath: harness.caPath, origin: GatewayHarness.allowedOrigin)
            #expect(head.hasPrefix("HTTP/1.1 101 "))
            try await peer.send([0x82] + client)
            let message = try await peer.readMessage()
            #expect(message.payload.count < 126, "a longer message has a longer WebSocket header than section 15 shows")
            let sent = [0x80 | message.opcode, UInt8(message.payload.count)] + message.payload
            #expect(Self.hex(sent) == Self.hex([0x82] + server))
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    // MARK: reading the document

    /// The hexadecimal bytes printed after the first line that starts with `label` (leading
    /// spaces aside): the rest of that line and the lines after it that hold nothing but
    /// bytes and `|` separators, or, when the label's lines describe the payload first, the
    /// first run of such lines after it.
    static func bytes(in document: String, after label: String) throws -> [UInt8] {
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let start = lines.firstIndex(where: { $0.hasPrefix(label) }) else {
            throw RawFramePeer.Failure(description: "PROTOCOL.md has no line starting with \(label.debugDescription)")
        }
        var bytes = hexTokens(String(lines[start].dropFirst(label.count))) ?? []
        var index = start + 1
        if bytes.isEmpty {
            while index < lines.count, hexTokens(lines[index]) == nil { index += 1 }
        }
        while index < lines.count, let more = hexTokens(lines[index]) {
            bytes += more
            index += 1
        }
        guard !bytes.isEmpty else { throw RawFramePeer.Failure(description: "no bytes printed after \(label.debugDescription)") }
        return bytes
    }

    /// The bytes of a line made of two-digit hexadecimal numbers and `|`; nil for any other line.
    static func hexTokens(_ line: String) -> [UInt8]? {
        let tokens = line.split(separator: " ").filter { $0 != "|" }
        guard !tokens.isEmpty else { return nil }
        var bytes: [UInt8] = []
        for token in tokens {
            guard token.count == 2, let byte = UInt8(token, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: " ")
    }
}
