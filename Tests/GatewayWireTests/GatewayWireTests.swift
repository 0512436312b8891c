// Tests for GatewayWire.
