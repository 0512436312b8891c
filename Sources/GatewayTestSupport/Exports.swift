@_exported import GatewayTestKit
