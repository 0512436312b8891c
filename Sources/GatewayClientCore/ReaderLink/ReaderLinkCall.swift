import GatewayChannel
import GatewayWire

/// The device's end of one `ReaderLink.Attach` call: what the readers the device hosts (a
/// Bluetooth reader's link, the Tap to Pay phone's own) carry their messages on. The wire-level
/// `ReaderLinkClient` (module `GatewayWireClients`) is built on it; an app never sees it.
package struct ReaderLinkCall: Sendable {
    let call: BidirectionalCall<ReaderGatewayV1.ReaderUplink, ReaderGatewayV1.ReaderDownlink>

    /// The gateway's messages: registration state, commands, owner changes. Ends (or throws
    /// the ``RPCError``, e.g. `READER_LINK_REPLACED`, `SERIAL_NOT_PROVEN`) when the link ends.
    package var downlinks: ResponseStream<ReaderGatewayV1.ReaderDownlink> { call.responses }

    /// Opens the Attach call on `channel` and sends the hello.
    package static func attach(on channel: ClientChannel, hello: ReaderGatewayV1.ReaderHello) async throws -> ReaderLinkCall {
        let link = ReaderLinkCall(call: channel.bidirectional(ReaderGatewayV1.ReaderLink.attach))
        try await link.send(.hello(hello))
        return link
    }

    /// Sends one uplink.
    package func send(_ message: ReaderGatewayV1.ReaderUplink.Message) async throws {
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = message
        try await call.send(uplink)
    }

    /// Sends an uplink built already (the carrier's outbox holds them whole).
    func send(_ uplink: ReaderGatewayV1.ReaderUplink) async throws {
        try await call.send(uplink)
    }

    /// Ends the link politely (HALF_CLOSE).
    package func finish() { call.finish() }

    /// Drops the link at once (CANCEL).
    package func cancel() { call.cancel() }
}
