// GatewayWire: frames, the protobuf wire-format codec, messages and gRPC-style call state machines.
