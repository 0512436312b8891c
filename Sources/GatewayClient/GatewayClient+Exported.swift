// `import GatewayClient` is all a point-of-sale application on Linux needs: the platform-neutral
// library (GatewayClientCore: the terminal client, its models, events and errors, the call layer
// and the transport protocol) and the Linux transport it connects over by default
// (GatewayLinuxTransport: TLS on OpenSSL over the epoll loop). An app on another platform depends
// on the core alone and supplies a `ClientTransport` (docs/client.md). The wire-level clients
// (`AdminClient`, `ReaderLinkClient`, on the protocol's messages) are the separate library
// GatewayWireClients, not re-exported here: this import gives no protobuf type.
@_exported import GatewayClientCore
@_exported import GatewayLinuxTransport
// The call layer's in-process server (`InMemoryTransport`, `CallServer`), as before the split.
@_exported import GatewayRPC
