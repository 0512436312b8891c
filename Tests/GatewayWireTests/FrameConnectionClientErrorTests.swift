import GatewayWire
import Testing

/// A misbehaving server, written frame by frame, against a real client connection.
@Suite("FrameConnection client against a misbehaving server")
struct FrameConnectionClientErrorTests {
    typealias V1 = ReaderGatewayV1
    static let t0 = WireTime(nanoseconds: 5)

    static func client() -> FrameConnection {
        var client = FrameConnection(configuration: ConnectionConfiguration(role: .client), now: t0)
        _ = client.receive(FrameEncoder.encode(.settings(ConnectionSettings().message)), now: t0)
        _ = client.takeOutbound()
        return client
    }

    static func goAway(_ client: inout FrameConnection) throws -> V1.GoAway? {
        var decoder = FrameDecoder()
        decoder.append(client.takeOutbound())
        while let frame = try decoder.nextFrame() {
            if case .goAway(let goAway) = frame { return goAway }
        }
        return nil
    }

    @Test("a server that starts a call breaks the protocol")
    func serverStartsCall() throws {
        var client = Self.client()
        let id = try client.startCall(method: "/a/b", now: Self.t0)
        let events = client.receive(FrameEncoder.encode(.callStart(streamID: 2, V1.CallStart())), now: Self.t0)
        let goAway = try #require(try Self.goAway(&client))
        #expect(goAway.effectiveStatus.reason == .protocolError)
        #expect(events.first == .callEnded(streamID: id, V1.CallEnd(goAway.effectiveStatus)))
        #expect(client.state == .closed)
    }

    @Test("HALF_CLOSE from a server breaks the protocol")
    func serverHalfCloses() throws {
        var client = Self.client()
        let id = try client.startCall(method: "/a/b", now: Self.t0)
        _ = client.receive(FrameEncoder.encode(.halfClose(streamID: id)), now: Self.t0)
        #expect(try Self.goAway(&client)?.effectiveStatus.reason == .protocolError)
    }

    @Test("END_OF_CALL for a call that ended is ignored; for one never started it is an error")
    func lateAndBogusEndOfCall() throws {
        var client = Self.client()
        let id = try client.startCall(method: "/a/b", now: Self.t0)
        client.cancel(id)
        _ = client.takeOutbound()
        #expect(client.receive(FrameEncoder.encode(.endOfCall(streamID: id, V1.CallEnd(.ok))), now: Self.t0).isEmpty)
        #expect(client.state == .active)
        _ = client.receive(FrameEncoder.encode(.endOfCall(streamID: 99, V1.CallEnd(.ok))), now: Self.t0)
        #expect(try Self.goAway(&client)?.effectiveStatus.reason == .streamStateInvalid)
    }

    @Test("a lost transport ends every call with UNAVAILABLE / CONNECTION_LOST")
    func connectionLost() throws {
        var client = Self.client()
        let first = try client.startCall(method: "/a/b", now: Self.t0)
        let second = try client.startCall(method: "/a/b", now: Self.t0)
        let lost = V1.Status(.connectionLost, "the connection was lost")
        #expect(client.connectionLost() == [
            .callEnded(streamID: first, V1.CallEnd(lost)),
            .callEnded(streamID: second, V1.CallEnd(lost)),
            .closed(lost),
        ])
        #expect(lost.code == .unavailable)
        #expect { try client.startCall(method: "/a/b", now: Self.t0) } throws: { ($0 as? WireError)?.code == .connectionClosing }
    }

    @Test("a message larger than the server accepts is refused locally")
    func messageTooLarge() throws {
        var client = Self.client()
        let id = try client.startCall(method: "/a/b", now: Self.t0)
        let huge = [UInt8](repeating: 0, count: ConnectionSettings.defaultMaxFrameSize + 1)
        #expect { try client.send(serialized: huge, on: id) } throws: { ($0 as? WireError)?.code == .messageTooLarge }
        #expect(client.isOpen(id))
    }
}
