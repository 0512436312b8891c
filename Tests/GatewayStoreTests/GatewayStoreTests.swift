// Tests for GatewayStore.
