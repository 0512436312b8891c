// The call layer (``ClientChannel``, ``ClientChannelConfiguration``, ``RPCError``,
// ``ResponseStream``) lives in GatewayRPC, below both this library and the gateway's
// replica link. It is part of this library's API: `import GatewayClient` is all an
// application needs, as before the call layer had a module of its own.
@_exported import GatewayRPC
