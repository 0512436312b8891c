import GatewayClientCore
import GatewayWire

/// Webhook endpoints and resends (PROTOCOL.md section 23).
extension AdminClient {
    /// Creates an endpoint; the response carries its signing secret, shown this once.
    public func createWebhookEndpoint(_ request: ReaderGatewayV1.CreateWebhookEndpointRequest) async throws -> ReaderGatewayV1.CreateWebhookEndpointResponse {
        try await call(ReaderGatewayV1.FleetAdmin.createWebhookEndpoint, request, idempotent: false)
    }

    /// Creates an endpoint for `url` wanting `events` (empty: all).
    public func createWebhookEndpoint(url: String, events: [String] = [], description: String = "") async throws -> ReaderGatewayV1.CreateWebhookEndpointResponse {
        var request = ReaderGatewayV1.CreateWebhookEndpointRequest()
        request.url = url
        request.enabledEvents = events
        request.description = description
        return try await createWebhookEndpoint(request)
    }

    /// The account's endpoints, newest first, without secrets.
    public func listWebhookEndpoints() async throws -> [ReaderGatewayV1.WebhookEndpoint] {
        try await call(ReaderGatewayV1.FleetAdmin.listWebhookEndpoints, ReaderGatewayV1.ListWebhookEndpointsRequest(), idempotent: true).endpoints
    }

    public func updateWebhookEndpoint(_ request: ReaderGatewayV1.UpdateWebhookEndpointRequest) async throws -> ReaderGatewayV1.WebhookEndpoint {
        try await call(ReaderGatewayV1.FleetAdmin.updateWebhookEndpoint, request, idempotent: false).endpoint ?? ReaderGatewayV1.WebhookEndpoint()
    }

    /// Deletes an endpoint; answers it as it was.
    public func deleteWebhookEndpoint(_ id: String) async throws -> ReaderGatewayV1.WebhookEndpoint {
        var request = ReaderGatewayV1.DeleteWebhookEndpointRequest()
        request.endpointID = id
        return try await call(ReaderGatewayV1.FleetAdmin.deleteWebhookEndpoint, request, idempotent: false).endpoint ?? ReaderGatewayV1.WebhookEndpoint()
    }

    /// Queues `eventID` again for `endpointID`.
    public func resendEvent(_ eventID: String, endpointID: String) async throws {
        var request = ReaderGatewayV1.ResendEventRequest()
        request.eventID = eventID
        request.endpointID = endpointID
        _ = try await call(ReaderGatewayV1.FleetAdmin.resendEvent, request, idempotent: false)
    }

    /// Queues again the events of a created range for one endpoint; how many.
    public func resendEvents(_ request: ReaderGatewayV1.ResendEventsRequest) async throws -> UInt32 {
        try await call(ReaderGatewayV1.FleetAdmin.resendEvents, request, idempotent: false).queued
    }
}
