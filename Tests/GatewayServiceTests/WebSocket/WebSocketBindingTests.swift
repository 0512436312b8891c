import Foundation
import GatewayService
import GatewayWire
import Testing

/// PROTOCOL.md section 15 on the gateway's real TLS port, as a browser's WebSocket sees
/// it (``WebSocketPeer``, written from the RFCs): the upgrade and its refusals, calls
/// carried one frame per binary message, the close codes, and the browser library served
/// beside it.
@Suite("the WebSocket binding on the gateway's TLS port")
struct WebSocketBindingTests {
    static let attach = "/readergateway.v1.ReaderLink/Attach"

    @Test func anUpgradedConnectionCarriesCalls() async throws {
        try await withHarness { harness in
            let (peer, head) = try await WebSocketPeer.connect(port: harness.port, caPath: harness.caPath, origin: GatewayHarness.allowedOrigin)
            #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
            #expect(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
            #expect(head.contains("Sec-WebSocket-Protocol: readergateway.v1\r\n"))
            // No preface: the client's first message is its SETTINGS; the gateway's is its own.
            try await peer.sendFrame(RawWire.settings())
            let settings = try await peer.readProtocolFrame()
            #expect(settings.type == 0x0)
            // A real call: an unregistered reader attaches and is shown a registration code,
            // which the gateway took from PostgreSQL.
            var hello = ReaderGatewayV1.ReaderHello()
            hello.serialNumber = "WSBIND000001"
            var uplink = ReaderGatewayV1.ReaderUplink()
            uplink.message = .hello(hello)
            try await peer.sendFrame(RawWire.callStart(stream: 1, method: Self.attach))
            try await peer.sendFrame(RawWire.frame(0x2, stream: 1, uplink.serializedBytes()))
            var registration: ReaderGatewayV1.RegistrationState?
            while registration == nil {
                let frame = try await peer.readProtocolFrame()
                guard frame.type == 0x2, frame.streamID == 1 else { continue }
                if case .registration(let state) = try ReaderGatewayV1.ReaderDownlink(serializedBytes: frame.payload).message { registration = state }
            }
            #expect(registration?.registered == false)
            #expect(registration?.registrationCode.isEmpty == false)
            // Keepalive is the protocol's PING, answered on the same path.
            try await peer.sendFrame(RawWire.ping(7))
            var ack: RawFramePeer.RawFrame?
            while ack == nil {
                let frame = try await peer.readProtocolFrame()
                if frame.type == 0x6 { ack = frame }
            }
            #expect(ack?.flags == 0x1)
            #expect(ack?.payload.last == 7)
            // The client is done: its close is echoed with its code, then TLS closes.
            try await peer.sendClose(1000)
            let (_, code) = try await peer.readUntilClose()
            #expect(code == 1000)
            #expect(await peer.tls.readEnd() == .closeNotify)
        }
    }

    /// A browser offers `h2` and `http/1.1` in ALPN: the gateway selects `http/1.1` (it
    /// refuses a handshake whose offer it cannot meet) and the upgrade proceeds.
    @Test func aBrowsersALPNOfferSelectsHTTP1() async throws {
        try await withHarness { harness in
            let (peer, head) = try await WebSocketPeer.connect(
                port: harness.port, caPath: harness.caPath, origin: GatewayHarness.allowedOrigin, alpn: ["h2", "http/1.1"]
            )
            #expect(peer.tls.selectedALPN == "http/1.1")
            #expect(head.hasPrefix("HTTP/1.1 101 "))
            // Native clients keep their own protocol.
            let native = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath, alpn: ["reader-gateway/1", "http/1.1"])
            #expect(native.selectedALPN == "reader-gateway/1")
        }
    }

    @Test func aRefusedOriginGets403AndTheRawPortStillWorks() async throws {
        try await withHarness { harness in
            let (peer, head) = try await WebSocketPeer.connect(port: harness.port, caPath: harness.caPath, origin: "https://elsewhere.example")
            #expect(head.hasPrefix("HTTP/1.1 403 "))
            #expect(head.contains("Connection: close\r\n"))
            // The body says what to do; then the connection closes.
            var end = await peer.tls.readEnd()
            while end == .moreBytes(1) { end = await peer.tls.readEnd() }
            #expect(end == .closeNotify)
            // A client without Origin is not a browser: the list does not apply.
            let native = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath, origin: nil)
            try await native.sendClose(1000)
            #expect(try await native.readUntilClose().code == 1000)
            // The raw protocol shares the port.
            let raw = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath)
            try await raw.write(RawWire.opening)
            #expect(try await raw.readFrame().get().type == 0x0)
        }
    }

    @Test func anotherPathGets404() async throws {
        try await withHarness { harness in
            let (_, head) = try await WebSocketPeer.connect(port: harness.port, caPath: harness.caPath, origin: GatewayHarness.allowedOrigin, path: "/")
            #expect(head.hasPrefix("HTTP/1.1 404 "))
        }
    }

    /// What breaks WebSocket itself ends that connection with its close code at once, and
    /// the other connections keep being served.
    /// A frame header announcing one byte more than the largest message (max_frame_size + 10
    /// bytes), with no payload after it: the gateway decides from the header alone.
    static let oversizedHeader: [UInt8] = {
        let length = ConnectionSettings.defaultMaxFrameSize + 11
        return [0x02, 0x80 | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) } + [0x37, 0xfa, 0x21, 0x3d]
    }()

    static let brokenWebSocketFrames: [(String, [UInt8], Int)] = [
        ("a text message", WebSocketPeer.clientFrame(opcode: 0x1, Array("hello".utf8)), 1003),
        ("an unmasked frame", WebSocketPeer.clientFrame(opcode: 0x2, RawWire.ping(1), masked: false), 1002),
        ("a reserved opcode", WebSocketPeer.clientFrame(opcode: 0x3, []), 1002),
        ("a binary message holding two frames", WebSocketPeer.clientFrame(opcode: 0x2, RawWire.ping(1) + RawWire.ping(2)), 1002),
        ("a message above max_frame_size + 10", oversizedHeader, 1009),
    ]

    @Test(arguments: brokenWebSocketFrames)
    func aBrokenWebSocketFrameGetsItsCloseCode(name: String, bytes: [UInt8], code: Int) async throws {
        try await withHarness { harness in
            let bystander = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath)
            let peer = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath)
            try await peer.send(bytes)
            let (frames, closeCode) = try await peer.readUntilClose()
            #expect(closeCode == code, "\(name)")
            #expect(frames.allSatisfy { $0.type != 0x7 }, "no GOAWAY: no protocol frame was read (\(name))")
            // The bystander is still served.
            try await bystander.sendFrame(RawWire.ping(9))
            let ack = try await bystander.readProtocolFrame()
            #expect(ack.type == 0x6 && ack.flags == 0x1 && ack.payload.last == 9)
        }
    }

    /// What breaks the protocol inside a frame gets the protocol's GOAWAY, then the close
    /// code the table maps its reason to.
    static let protocolErrors: [(String, [UInt8], ReaderGatewayV1.ErrorReason, Int)] = [
        ("a PING on call id 1", RawWire.ping(1, stream: 1), ReaderGatewayV1.ErrorReason.protocolError, 1002),
        ("a CALL_START of 20 000 bytes", RawWire.callStart(stream: 1, method: "/" + String(repeating: "m", count: 20_000)), ReaderGatewayV1.ErrorReason.headerTooLarge, 1009),
        ("four PINGs at once", RawWire.ping(1), ReaderGatewayV1.ErrorReason.tooManyPings, 1008),
    ]

    @Test(arguments: protocolErrors)
    func aProtocolErrorGetsGoAwayThenItsCloseCode(name: String, frame: [UInt8], reason: ReaderGatewayV1.ErrorReason, code: Int) async throws {
        try await withHarness { harness in
            let peer = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath)
            // Pings are sent one message each (one frame per message); the others once.
            for _ in 0..<(reason == .tooManyPings ? 4 : 1) { try await peer.sendFrame(frame) }
            let (frames, closeCode) = try await peer.readUntilClose()
            let goAway = try #require(frames.last { $0.type == 0x7 }, "a GOAWAY before the close (\(name))")
            #expect(try ReaderGatewayV1.GoAway(serializedBytes: goAway.payload).status?.reason == reason, "\(name)")
            #expect(closeCode == code, "\(name)")
            try await peer.sendClose(code)
            #expect(await peer.tls.readEnd() == .closeNotify)
        }
    }

    @Test func goAwayOnShutdownClosesWith1001() async throws {
        try await withHarness { harness in
            let peer = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath)
            harness.host.goAwayAll()
            let (frames, code) = try await peer.readUntilClose()
            let goAway = try #require(frames.last { $0.type == 0x7 })
            #expect(try ReaderGatewayV1.GoAway(serializedBytes: goAway.payload).status?.reason == .goingAway)
            #expect(code == 1001)
            try await peer.sendClose(1001)
            #expect(await peer.tls.readEnd() == .closeNotify)
        }
    }

    /// Every file of Sources/GatewayWebClient (but the Swift tables that compile them in) is
    /// served over HTTP byte for byte as it is in the tree.
    @Test func theBrowserLibraryIsServedAsOnDisk() async throws {
        let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Sources/GatewayWebClient").standardizedFileURL
        let files = try #require(FileManager.default.enumerator(atPath: library.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".js") || $0.hasSuffix(".d.ts") }.sorted()
        #expect(files.count >= 16 && files.contains("readergateway.d.ts") && files.contains("generated/readergateway/v1/sdk.js"), "\(files)")
        try await withHarness { harness in
            for file in files {
                let tls = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath)
                try await tls.write(Array("GET /readergateway/v1/js/\(file) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                let head = try await tls.readHead().get()
                #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(file) is not served: list it in Package.swift and its folder's Swift table")
                #expect(head.contains(file.hasSuffix(".d.ts") ? "Content-Type: application/typescript; charset=utf-8\r\n" : "Content-Type: text/javascript; charset=utf-8\r\n"))
                let length = try #require(head.split(separator: "\r\n").first { $0.hasPrefix("Content-Length: ") }.flatMap { Int($0.dropFirst(16)) })
                let body = try await tls.read(exactly: length).get()
                let onDisk = try Data(contentsOf: library.appendingPathComponent(file))
                #expect(body == Array(onDisk), "\(file) is served byte for byte as in Sources/GatewayWebClient")
                #expect(await tls.readEnd() == .closeNotify)
            }
            let tls = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath)
            try await tls.write(Array("GET /readergateway/v1/js/../Package.swift HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            #expect(try await tls.readHead().get().hasPrefix("HTTP/1.1 404 "))
        }
    }

    /// A page whose upgrade failed asks whether its origin is allowed (a browser does not
    /// tell it the 403): the answer names the origin and says yes or no.
    @Test func anOriginIsToldWhetherItIsAllowed() async throws {
        try await withHarness { harness in
            for (origin, allowed) in [(GatewayHarness.allowedOrigin, true), ("http://localhost:27082", false)] {
                let encoded = origin.replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: "/", with: "%2F")
                let tls = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath)
                try await tls.write(Array("GET /readergateway/v1/js/origins/\(encoded) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                let head = try await tls.readHead().get()
                #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.contains("Access-Control-Allow-Origin: *\r\n"), "\(head)")
                let length = try #require(head.split(separator: "\r\n").first { $0.hasPrefix("Content-Length: ") }.flatMap { Int($0.dropFirst(16)) })
                let body = String(decoding: try await tls.read(exactly: length).get(), as: UTF8.self)
                #expect(body == "{\"origin\":\"\(origin)\",\"allowed\":\(allowed),\"flag\":\"--websocket-origins\"}", "\(body)")
            }
        }
    }

    // MARK: time limits (a socket timeout of 5 s bounds each read: a limit not enforced fails as .timedOut)

    @Test func anUpgradeThatDoesNotFinishInTimeIsCut() async throws {
        let limits = WebSocketCarrierConfiguration(origins: .only([GatewayHarness.allowedOrigin]), handshakeTimeout: .milliseconds(300))
        try await withHarness(webSocket: limits) { harness in
            let tls = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath, timeout: 5)
            try await tls.write(Array("GET /readergateway/v1/websocket HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
            let end = await tls.readEnd()
            #expect(end == .closeNotify || end == .endWithoutCloseNotify, "the half-sent upgrade is closed without an answer, not \(end)")
            // Other connections are unaffected.
            let raw = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath, timeout: 5)
            try await raw.write(RawWire.opening)
            #expect(try await raw.readFrame().get().type == 0x0)
        }
    }

    @Test func aPeerThatDoesNotAnswerTheCloseIsCut() async throws {
        let limits = WebSocketCarrierConfiguration(origins: .only([GatewayHarness.allowedOrigin]), closeTimeout: .milliseconds(300))
        try await withHarness(webSocket: limits) { harness in
            let peer = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath, timeout: 5)
            harness.host.goAwayAll()
            let (_, code) = try await peer.readUntilClose()
            #expect(code == 1001)
            // No answer: the gateway closes the connection after its close timeout.
            let end = await peer.tls.readEnd()
            #expect(end == .closeNotify || end == .endWithoutCloseNotify, "cut after the close timeout, not \(end)")
        }
    }

    /// Runs `body` with a started gateway, stopped even when `body` throws.
    private func withHarness(
        webSocket: WebSocketCarrierConfiguration = WebSocketCarrierConfiguration(origins: .only([GatewayHarness.allowedOrigin])),
        _ body: (GatewayHarness) async throws -> Void
    ) async throws {
        try await GatewayHarness.start(webSocket: webSocket).run(body)
    }
}
