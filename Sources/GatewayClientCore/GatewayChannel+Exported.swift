// The call layer (``ClientChannel``, ``ClientChannelConfiguration``, ``RPCError``,
// ``ResponseStream``) and the transport protocol a platform supplies (``ClientTransport``)
// live in GatewayChannel, below both this library and the gateway's replica link. They are
// part of this library's API.
@_exported import GatewayChannel
