import GatewayChannel
import GatewayWire

/// What the gateway answered a connect beyond the ``Reader`` (the gateway's own: Stripe has no
/// equivalent), as ``TerminalClient/latestConnection`` keeps it.
public struct ReaderConnectionDetails: Sendable, Equatable {
    /// The reader connected.
    public var reader: Reader
    /// The ownership generation the connect was granted (each takeover adds one).
    public var generation: UInt64
    /// Whether the connect took the reader from another lane (that lane is told `replaced`).
    public var replacedOtherSession: Bool
    /// A required software update that failed but let the reader connect (the 30-day rule);
    /// nil when none failed.
    public var requiredUpdateFailure: TerminalError?
    /// The discovery the reader came from (for an easy connect, the one it made).
    public var discoveryID: String

    init(_ wire: ReaderGatewayV1.ConnectReaderResponse, fallback: ReaderGatewayV1.Reader, discoveryID: String) {
        reader = Reader(wire.reader ?? fallback)
        generation = wire.generation
        replacedOtherSession = wire.replacedOtherSession
        requiredUpdateFailure = wire.requiredUpdateFailure.map { TerminalError(RPCError(status: $0)) }
        self.discoveryID = discoveryID
    }
}
