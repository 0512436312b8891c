// Tests for GatewayOperations.
