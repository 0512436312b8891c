import GatewayPostgres
import GatewayRepositories

/// The account's webhook endpoints and resends as the admin surface changes them, each with its
/// audit row in the change's statement: PostgreSQL's ``WebhookStore`` in the gateway.
protocol WebhookEndpointRepository: Sendable {
    func create(account: String, url: String, description: String, enabledEvents: [String], audit: AuditEntry) async throws(StoreError) -> (endpoint: WebhookEndpoint, secret: String)
    func endpoints(account: String) async throws(StoreError) -> [WebhookEndpoint]
    func endpoint(_ id: String, account: String) async throws(StoreError) -> WebhookEndpoint?
    func update(_ id: String, account: String, change: WebhookEndpointChange, audit: AuditEntry) async throws(StoreError) -> WebhookEndpoint?
    func delete(_ id: String, account: String, audit: AuditEntry) async throws(StoreError) -> WebhookEndpoint?
    func resend(event: String, endpoint: String, account: String, audit: AuditEntry) async throws(StoreError) -> Bool
    func resend(
        createdFromUnixMs: Int64, beforeUnixMs: Int64, endpoint: String, account: String, limit: Int, audit: AuditEntry
    ) async throws(StoreError) -> Int?
}

extension WebhookStore: WebhookEndpointRepository {}
