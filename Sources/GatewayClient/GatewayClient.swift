// GatewayClient: the Swift client library — point-of-sale sessions, fleet admin, reader link.
