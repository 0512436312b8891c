import GatewayChannel
import GatewayClientCore
import GatewayWire

/// A smart reader's side of `ReaderLink.Attach`: hello and heartbeats up, registration
/// state and commands down, command results up.
///
/// ```swift
/// let link = ReaderLinkClient.attach(on: channel, hello: hello)
/// for try await downlink in link.downlinks { ... try await link.sendResult(result) }
/// ```
public struct ReaderLinkClient: Sendable {
    let link: ReaderLinkCall

    /// The gateway's messages: registration state, commands, owner changes. Ends (or throws
    /// the ``RPCError``, e.g. `READER_LINK_REPLACED`, `SERIAL_NOT_PROVEN`) when the link ends.
    public var downlinks: ResponseStream<ReaderGatewayV1.ReaderDownlink> { link.downlinks }

    /// Opens the Attach call and sends the hello.
    public static func attach(on channel: ClientChannel, hello: ReaderGatewayV1.ReaderHello) async throws -> ReaderLinkClient {
        ReaderLinkClient(link: try await ReaderLinkCall.attach(on: channel, hello: hello))
    }

    /// Reports status and liveness.
    public func heartbeat(_ heartbeat: ReaderGatewayV1.ReaderHeartbeat) async throws {
        try await link.send(.heartbeat(heartbeat))
    }

    /// Answers a command.
    public func sendResult(_ result: ReaderGatewayV1.CommandResult) async throws {
        try await link.send(.commandResult(result))
    }

    /// Reports software update progress.
    public func sendUpdateProgress(version: String, progress: Float) async throws {
        var update = ReaderGatewayV1.ReaderUpdateProgress()
        update.version = version
        update.progress = progress
        try await link.send(.updateProgress(update))
    }

    /// A mobile reader's device says why it ends the link (and whether it reconnects to the
    /// reader by itself); ``finish()`` follows. A link ended this way is ended in order: its
    /// call ends OK, where a link that ends without a word ends with `READER_OFFLINE`.
    public func sendEnding(_ ending: ReaderGatewayV1.ReaderLinkEnding) async throws {
        try await link.send(.linkEnding(ending))
    }

    /// Ends the link politely (HALF_CLOSE).
    public func finish() { link.finish() }

    /// Drops the link at once (CANCEL).
    public func cancel() { link.cancel() }
}
