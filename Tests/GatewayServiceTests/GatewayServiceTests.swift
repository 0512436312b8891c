// Tests for GatewayService.
