import GatewayWire
import Testing

/// PROTOCOL.md section 7 over real TLS, as a client written from the spec sees it: every
/// connection error is answered with a GOAWAY carrying `last_stream_id` and the error's
/// status (code and reason), then the TLS close_notify. One test per row of the table's
/// connection errors, each violation of the row on its own connection; then the graceful
/// GOAWAY of section 9.
@Suite("connection errors end with GOAWAY, then close_notify")
struct ConnectionErrorTests {
    /// One way to break a row's rule: the writes after the TLS handshake, and the
    /// `last_stream_id` the GOAWAY must carry.
    struct Violation: Sendable, CustomStringConvertible {
        var name: String
        var writes: [[UInt8]]
        var lastStreamID: UInt32 = 0
        var description: String { name }

        /// The preface and SETTINGS, then `bytes`, in one write.
        static func afterOpening(_ name: String, _ bytes: [UInt8], lastStreamID: UInt32 = 0) -> Violation {
            Violation(name: name, writes: [RawWire.opening + bytes], lastStreamID: lastStreamID)
        }
    }

    static let attach = "/readergateway.v1.ReaderLink/Attach"

    @Test func unsupportedProtocol() async throws {
        try await expectGoAway(.unsupportedProtocol, for: [
            Violation(name: "an HTTP POST instead of the preface (a GET is the WebSocket binding)", writes: [Array("POST / HTTP/1.1\r\nHost: gateway\r\n\r\n".utf8)]),
            Violation(name: "SETTINGS with protocol_version 2", writes: [RawWire.preface + RawWire.settings(version: 2)]),
        ])
    }

    @Test func frameTooLarge() async throws {
        try await expectGoAway(.frameTooLarge, for: [
            .afterOpening("a MESSAGE header announcing 64 MiB", RawWire.header(length: 64 << 20, type: 0x2, stream: 1)),
            .afterOpening("a PING header announcing 4 MiB + 1", RawWire.header(length: (4 << 20) + 1, type: 0x6)),
        ])
    }

    @Test func headerTooLarge() async throws {
        try await expectGoAway(.headerTooLarge, for: [
            .afterOpening("a CALL_START of 20 000 bytes", RawWire.callStart(stream: 1, method: "/" + String(repeating: "m", count: 20_000))),
        ])
    }

    @Test func unknownFrameType() async throws {
        try await expectGoAway(.unknownFrameType, for: [
            .afterOpening("frame type 0x7f", RawWire.frame(0x7f)),
            .afterOpening("frame type 0x9 on a call", RawWire.frame(0x9, stream: 1, [1, 2, 3])),
        ])
    }

    @Test func protocolError() async throws {
        try await expectGoAway(.protocolError, for: [
            .afterOpening("a PING with an undefined flag bit", RawWire.ping(1, flags: 0x80)),
            .afterOpening("a HALF_CLOSE with the ACK flag", RawWire.callStart(stream: 1, method: Self.attach) + RawWire.frame(0x3, flags: 0x1, stream: 1), lastStreamID: 1),
            .afterOpening("a PING on call id 1", RawWire.ping(1, stream: 1)),
            .afterOpening("a PING of 4 bytes", RawWire.frame(0x6, [0, 0, 0, 1])),
            .afterOpening("a WINDOW_UPDATE of 0", RawWire.windowUpdate(stream: 0, increment: 0)),
            .afterOpening("a second SETTINGS", RawWire.settings()),
            Violation(name: "a PING before SETTINGS", writes: [RawWire.preface + RawWire.ping(1)]),
        ])
    }

    @Test func malformedMessage() async throws {
        try await expectGoAway(.malformedMessage, for: [
            Violation(name: "SETTINGS truncated inside a varint", writes: [RawWire.preface + RawWire.frame(0x0, [0x08, 0x80])]),
            Violation(name: "SETTINGS with a varint over 10 bytes", writes: [RawWire.preface + RawWire.frame(0x0, [0x08] + [UInt8](repeating: 0xff, count: 10) + [0x01])]),
            .afterOpening("CALL_START with wire type 7", RawWire.frame(0x1, stream: 1, [0x0f, 0x00])),
            .afterOpening("CALL_START with field number 0", RawWire.frame(0x1, stream: 1, [0x00, 0x01])),
            .afterOpening("CALL_START whose method (a string) arrives as a varint", RawWire.frame(0x1, stream: 1, [0x08, 0x01])),
            .afterOpening("CALL_START whose method is not UTF-8", RawWire.frame(0x1, stream: 1, [0x0a, 0x02, 0xff, 0xfe])),
            .afterOpening("GOAWAY whose status is truncated", RawWire.frame(0x7, [0x12, 0x05, 0x08])),
        ])
    }

    @Test func streamIDInvalid() async throws {
        try await expectGoAway(.streamIDInvalid, for: [
            .afterOpening("CALL_START on even stream 2", RawWire.callStart(stream: 2, method: Self.attach)),
            .afterOpening(
                "CALL_START reusing stream 1",
                RawWire.callStart(stream: 1, method: "/readergateway.v1.Nope/Nothing") + RawWire.callStart(stream: 1, method: Self.attach),
                lastStreamID: 1
            ),
            .afterOpening(
                "CALL_START 3 after 5",
                RawWire.callStart(stream: 5, method: Self.attach) + RawWire.callStart(stream: 3, method: Self.attach),
                lastStreamID: 5
            ),
            .afterOpening("MESSAGE on stream 0", RawWire.frame(0x2, stream: 0, [1])),
            .afterOpening("a CALL_START with the reserved stream bit set", RawWire.callStart(stream: 0x8000_0001, method: Self.attach)),
        ])
    }

    @Test func streamStateInvalid() async throws {
        try await expectGoAway(.streamStateInvalid, for: [
            .afterOpening("MESSAGE on stream 7, never opened", RawWire.frame(0x2, stream: 7, [1, 2])),
            .afterOpening("HALF_CLOSE on stream 9, never opened", RawWire.frame(0x3, stream: 9)),
            .afterOpening("CANCEL on stream 11, never opened", RawWire.frame(0x5, stream: 11)),
            .afterOpening("WINDOW_UPDATE on stream 13, never opened", RawWire.windowUpdate(stream: 13, increment: 1)),
        ])
    }

    @Test func flowControlViolation() async throws {
        // A MESSAGE that fills the call's 64 KiB window exactly, then one more byte. The
        // second write is one TLS record holding the first message's tail and the extra
        // MESSAGE, so the gateway reads both before it could return any credit.
        let window = 65_536
        let first = RawWire.header(length: UInt32(window), type: 0x2, stream: 1) + [UInt8](repeating: 0x2a, count: window)
        let split = first.count - 100
        try await expectGoAway(.flowControlViolation, for: [
            Violation(
                name: "MESSAGE beyond the call's window",
                writes: [RawWire.opening + RawWire.callStart(stream: 1, method: Self.attach) + Array(first[..<split]), Array(first[split...]) + RawWire.frame(0x2, stream: 1, [1])],
                lastStreamID: 1
            ),
            .afterOpening("WINDOW_UPDATE taking the connection window above 2^31-1", RawWire.windowUpdate(stream: 0, increment: 0x7fff_ffff)),
            .afterOpening(
                "WINDOW_UPDATE taking a call's window above 2^31-1",
                RawWire.callStart(stream: 1, method: Self.attach) + RawWire.windowUpdate(stream: 1, increment: 0x7fff_ffff),
                lastStreamID: 1
            ),
        ])
    }

    @Test func tooManyPings() async throws {
        // One PING every 5 s is allowed; two strikes are tolerated, the third ends the connection.
        try await expectGoAway(.tooManyPings, for: [
            .afterOpening("four PINGs at once", RawWire.ping(1) + RawWire.ping(2) + RawWire.ping(3) + RawWire.ping(4)),
        ]) { before in
            let acks = before.filter { $0.type == 0x6 && $0.flags == 0x1 }
            #expect(acks.map { $0.payload.last } == [1, 2, 3], "the pings before the third strike are answered")
        }
    }

    // MARK: graceful GOAWAY (section 9)

    @Test func gracefulShutdownOfAnIdleConnection() async throws {
        let harness = try await GatewayHarness.start()
        do {
            let peer = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath)
            try await peer.write(RawWire.opening)
            let settings = try await peer.readFrame().get()
            #expect(settings.type == 0x0)
            harness.host.goAwayAll()
            let (before, goAway) = try await peer.readUntilGoAway()
            #expect(before.isEmpty)
            #expect(goAway.status?.reason == .goingAway)
            #expect(goAway.status?.code == .unavailable)
            #expect(goAway.lastStreamID == 0)
            #expect(await peer.readEnd() == .closeNotify)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    @Test func gracefulShutdownLetsTheOpenCallEndBeforeTheClose() async throws {
        let harness = try await GatewayHarness.start()
        do {
            let peer = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath)
            // An unregistered reader's Attach stays open, showing a registration code.
            var hello = ReaderGatewayV1.ReaderHello()
            hello.serialNumber = "WSCGOAWAY001"
            var uplink = ReaderGatewayV1.ReaderUplink()
            uplink.message = .hello(hello)
            try await peer.write(RawWire.opening + RawWire.callStart(stream: 1, method: Self.attach) + RawWire.frame(0x2, stream: 1, uplink.serializedBytes()))
            var answered = false
            while !answered {
                let frame = try await peer.readFrame().get()
                answered = frame.type == 0x2 && frame.streamID == 1
            }
            harness.host.goAwayAll()
            let (_, goAway) = try await peer.readUntilGoAway()
            #expect(goAway.status?.reason == .goingAway)
            #expect(goAway.lastStreamID == 1, "the open call is one the gateway processes")
            // The reader gives up: its call ends, and with it the connection.
            try await peer.write(RawWire.frame(0x3, stream: 1))
            var end: ReaderGatewayV1.CallEnd?
            while end == nil {
                let frame = try await peer.readFrame().get()
                if frame.type == 0x4 && frame.streamID == 1 { end = try ReaderGatewayV1.CallEnd(serializedBytes: frame.payload) }
            }
            let code = end?.status?.code ?? .ok
            #expect(code == .ok, "the call ends normally: \(String(describing: end))")
            #expect(await peer.readEnd() == .closeNotify)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    // MARK: helpers

    /// Runs each violation on its own connection to one gateway and expects the server's
    /// SETTINGS, possibly answers to earlier frames, a GOAWAY with `reason`, its status
    /// code and the violation's `last_stream_id`, then close_notify.
    private func expectGoAway(
        _ reason: ReaderGatewayV1.ErrorReason,
        for violations: [Violation],
        sourceLocation: SourceLocation = #_sourceLocation,
        alsoCheck: ([RawFramePeer.RawFrame]) -> Void = { _ in }
    ) async throws {
        let harness = try await GatewayHarness.start()
        do {
            for violation in violations {
                let peer = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath)
                for bytes in violation.writes { try await peer.write(bytes) }
                let (before, goAway) = try await peer.readUntilGoAway()
                #expect(before.first?.type == 0x0, "\(violation): the server's SETTINGS comes first", sourceLocation: sourceLocation)
                let status = goAway.status ?? ReaderGatewayV1.Status()
                #expect(status.reason == reason, "\(violation): \(status.code) / \(status.reason): \(status.message)", sourceLocation: sourceLocation)
                #expect(status.code == reason.statusCode, "\(violation)", sourceLocation: sourceLocation)
                #expect(!status.message.isEmpty, "\(violation): the GOAWAY says what happened", sourceLocation: sourceLocation)
                #expect(goAway.lastStreamID == violation.lastStreamID, "\(violation)", sourceLocation: sourceLocation)
                #expect(await peer.readEnd() == .closeNotify, "\(violation): close_notify follows the GOAWAY", sourceLocation: sourceLocation)
                alsoCheck(before)
            }
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}
