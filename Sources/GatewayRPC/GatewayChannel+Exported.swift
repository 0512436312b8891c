// The client half of calls (``ClientChannel``, ``ClientChannelConfiguration``, ``RPCError``,
// ``ResponseStream``) lives in the platform-neutral GatewayChannel over a transport protocol, and
// its transport on Linux (TLS over the event loop, ``ClientChannel/connect(_:group:)``) in
// GatewayLinuxTransport. Both stay part of this module's API: the server half shares
// `RPCError`, and the gateway's replica link and the tests connect channels through it.
@_exported import GatewayChannel
@_exported import GatewayLinuxTransport
