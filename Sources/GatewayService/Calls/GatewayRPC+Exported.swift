// The services are written against the call layer's types (`ServerCall`, `CallContext`, the
// routes their generated protocols require), which live one layer down in GatewayRPC; every
// file of this module and its users see them through this module.
@_exported import GatewayRPC
