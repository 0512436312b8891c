// GatewayWireClients: the fleet admin and reader-side calls, on the protocol's messages.
//
// `AdminClient` (the fleet admin surface) and `ReaderLinkClient` (a smart reader's side of
// `ReaderLink.Attach`) take and answer `ReaderGatewayV1` messages as proto/PROTOCOL.md
// declares them, so this module gives those messages too. It is a library of its own, apart
// from the point-of-sale SDK: `import GatewayClient` gives no protobuf type, and an app that
// means to speak the wire imports this module by name (docs/client.md).
@_exported import GatewayWire
