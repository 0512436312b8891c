import GatewayWire

extension AdminRendering {
    public static func json(_ endpoint: ReaderGatewayV1.WebhookEndpoint) -> JSONValue {
        .object([
            "id": .string(endpoint.id), "url": .string(endpoint.url), "description": .string(endpoint.description),
            "enabled_events": .array(endpoint.enabledEvents.map { .string($0) }), "enabled": .bool(endpoint.enabled),
            "disabled_reason": endpoint.disabledReason.isEmpty ? .null : .string(endpoint.disabledReason),
            "created_unix_ms": .integer(endpoint.createdUnixMs),
            "failing_since_unix_ms": endpoint.failingSinceUnixMs == 0 ? .null : .integer(endpoint.failingSinceUnixMs),
        ])
    }

    public static func table(_ endpoints: [ReaderGatewayV1.WebhookEndpoint]) -> Table {
        Table(headers: ["ID", "URL", "EVENTS", "STATE", "FAILING SINCE", "DESCRIPTION"], rows: endpoints.map {
            [
                $0.id, $0.url, $0.enabledEvents.joined(separator: ","), $0.enabled ? "enabled" : "disabled (\($0.disabledReason))",
                $0.failingSinceUnixMs == 0 ? "-" : time($0.failingSinceUnixMs), dash($0.description),
            ]
        })
    }

    /// A created endpoint: its row, then its secret, which no later call shows.
    public static func created(_ response: ReaderGatewayV1.CreateWebhookEndpointResponse) -> String {
        table([response.endpoint ?? ReaderGatewayV1.WebhookEndpoint()]).description
            + "\n\nsigning secret (shown once; verify each delivery's ReaderGateway-Signature header with it):\n\(response.secret)"
    }
}
