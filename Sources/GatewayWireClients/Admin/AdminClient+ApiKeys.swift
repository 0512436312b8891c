import GatewayClientCore
import GatewayWire

extension AdminClient {
    /// Creates a secret key with `permissions`, limited to `locationIDs` (empty: every
    /// location), expiring at `expiresUnixMs` (0: never); the key and its secret (shown once).
    public func createApiKey(
        name: String, permissions: ReaderGatewayV1.ApiKeyPermissions, locationIDs: [String] = [], expiresUnixMs: Int64 = 0
    ) async throws -> ReaderGatewayV1.CreateApiKeyResponse {
        var request = ReaderGatewayV1.CreateApiKeyRequest()
        request.name = name
        request.permissions = permissions
        request.locationIDs = locationIDs
        request.expiresUnixMs = expiresUnixMs
        return try await call(ReaderGatewayV1.FleetAdmin.createApiKey, request, idempotent: false)
    }

    /// The account's keys (never their secrets), oldest first.
    public func listApiKeys() async throws -> [ReaderGatewayV1.ApiKey] {
        try await call(ReaderGatewayV1.FleetAdmin.listApiKeys, ReaderGatewayV1.ListApiKeysRequest(), idempotent: true).keys
    }

    /// A new secret for key `id`; the old one keeps working for `overlap` (nil: 24 hours, at most 7 days).
    public func rollApiKey(_ id: String, overlap: Duration? = nil) async throws -> ReaderGatewayV1.RollApiKeyResponse {
        var request = ReaderGatewayV1.RollApiKeyRequest()
        request.keyID = id
        if let overlap { request.overlapMs = overlap.components.seconds * 1000 + overlap.components.attoseconds / 1_000_000_000_000_000 }
        return try await call(ReaderGatewayV1.FleetAdmin.rollApiKey, request, idempotent: false)
    }

    /// Revokes key `id` at once; the key as it is now.
    public func revokeApiKey(_ id: String) async throws -> ReaderGatewayV1.ApiKey {
        var request = ReaderGatewayV1.RevokeApiKeyRequest()
        request.keyID = id
        return try await call(ReaderGatewayV1.FleetAdmin.revokeApiKey, request, idempotent: true).key ?? ReaderGatewayV1.ApiKey()
    }
}
