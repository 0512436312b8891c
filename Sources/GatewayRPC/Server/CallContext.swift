import GatewayChannel
import GatewayWire

/// What a method handler knows about the call it serves.
public struct CallContext: Sendable {
    /// The method path, e.g. `/readergateway.v1.Sdk/ConnectReader`.
    public var method: String
    /// The call's metadata from CALL_START.
    public var metadata: [ReaderGatewayV1.MetadataEntry]
    /// Identifies the connection the call arrived on (unique in this process).
    public var connectionID: UInt64
    /// The remote address, `host:port`.
    public var peer: String
    /// The identity proven by a client certificate from the reader CA (its subject
    /// serialNumber, else its CN); nil without a verified certificate.
    public var verifiedClientIdentity: String?
    /// The fleet console's session token, from the cookie of the WebSocket upgrade the call
    /// arrived on (nil on raw connections and for pages without the cookie).
    public var consoleSessionToken: String?
    /// The browser's `User-Agent`, from the WebSocket upgrade the call arrived on with a
    /// console session cookie (nil otherwise): the audit log names the console by it.
    public var consoleUserAgent: String?

    public init(
        method: String, metadata: [ReaderGatewayV1.MetadataEntry], connectionID: UInt64, peer: String,
        verifiedClientIdentity: String?, consoleSessionToken: String? = nil, consoleUserAgent: String? = nil
    ) {
        self.method = method
        self.metadata = metadata
        self.connectionID = connectionID
        self.peer = peer
        self.verifiedClientIdentity = verifiedClientIdentity
        self.consoleSessionToken = consoleSessionToken
        self.consoleUserAgent = consoleUserAgent
    }

    /// The value of the first metadata entry named `key` (lower case).
    public func metadataValue(_ key: String) -> String? {
        metadata.first { $0.key == key }.map { String(decoding: $0.value, as: UTF8.self) }
    }
}
