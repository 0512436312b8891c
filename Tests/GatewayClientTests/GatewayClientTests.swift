// Tests for GatewayClient.
