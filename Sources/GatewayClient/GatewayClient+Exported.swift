// `import GatewayClient` is all an application on Linux needs: the platform-neutral library
// (GatewayClientCore: the terminal, admin and reader-link clients, their models and state
// machines, the call layer and the transport protocol) and the Linux transport it connects over
// by default (GatewayLinuxTransport: TLS on OpenSSL over the epoll loop). An app on another
// platform depends on the core alone and supplies a `ClientTransport` (docs/client.md).
@_exported import GatewayClientCore
@_exported import GatewayLinuxTransport
// The call layer's in-process server (`InMemoryTransport`, `CallServer`), as before the split.
@_exported import GatewayRPC
