// Tests for GatewayDomain.
