import GatewayChannel
import GatewayWire

/// A smart reader's side of `ReaderLink.Attach`: hello and heartbeats up, registration
/// state and commands down, command results up.
///
/// ```swift
/// let link = ReaderLinkClient.attach(on: channel, hello: hello)
/// for try await downlink in link.downlinks { ... try await link.sendResult(result) }
/// ```
public struct ReaderLinkClient: Sendable {
    let call: BidirectionalCall<ReaderGatewayV1.ReaderUplink, ReaderGatewayV1.ReaderDownlink>

    /// The gateway's messages: registration state, commands, owner changes. Ends (or throws
    /// the ``RPCError``, e.g. `READER_LINK_REPLACED`, `SERIAL_NOT_PROVEN`) when the link ends.
    public var downlinks: ResponseStream<ReaderGatewayV1.ReaderDownlink> { call.responses }

    /// Opens the Attach call and sends the hello.
    public static func attach(on channel: ClientChannel, hello: ReaderGatewayV1.ReaderHello) async throws -> ReaderLinkClient {
        let link = ReaderLinkClient(call: channel.bidirectional(ReaderGatewayV1.ReaderLink.attach))
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .hello(hello)
        try await link.call.send(uplink)
        return link
    }

    /// Reports status and liveness.
    public func heartbeat(_ heartbeat: ReaderGatewayV1.ReaderHeartbeat) async throws {
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .heartbeat(heartbeat)
        try await call.send(uplink)
    }

    /// Answers a command.
    public func sendResult(_ result: ReaderGatewayV1.CommandResult) async throws {
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .commandResult(result)
        try await call.send(uplink)
    }

    /// Reports software update progress.
    public func sendUpdateProgress(version: String, progress: Float) async throws {
        var update = ReaderGatewayV1.ReaderUpdateProgress()
        update.version = version
        update.progress = progress
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .updateProgress(update)
        try await call.send(uplink)
    }

    /// A mobile reader's device says why it ends the link (and whether it reconnects to the
    /// reader by itself); ``finish()`` follows. A link ended this way is ended in order: its
    /// call ends OK, where a link that ends without a word ends with `READER_OFFLINE`.
    public func sendEnding(_ ending: ReaderGatewayV1.ReaderLinkEnding) async throws {
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .linkEnding(ending)
        try await call.send(uplink)
    }

    /// Ends the link politely (HALF_CLOSE).
    public func finish() { call.finish() }

    /// Drops the link at once (CANCEL).
    public func cancel() { call.cancel() }
}
