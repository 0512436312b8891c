// GatewayDomain: pure state machines: ownership arbitration, registration, discovery.
