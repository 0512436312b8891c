// Tests for GatewayTransport.
