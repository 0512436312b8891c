import GatewayRepositories
import GatewayWire

extension FleetAdminService {
    /// The admin methods a console page may call without the CSRF token: they change nothing.
    static let readOnlyMethods: Set<String> = Set([
        ReaderGatewayV1.FleetAdmin.listLocations.path, ReaderGatewayV1.FleetAdmin.listReaders.path,
        ReaderGatewayV1.FleetAdmin.getReader.path, ReaderGatewayV1.FleetAdmin.listReaderOwnership.path,
        ReaderGatewayV1.FleetAdmin.listOwnershipHistory.path, ReaderGatewayV1.FleetAdmin.listSessions.path,
        ReaderGatewayV1.FleetAdmin.watchFleet.path,
    ])

    /// The account of the console session whose cookie came with the call's WebSocket
    /// upgrade. A call that changes something must also carry the session's CSRF token
    /// (`x-csrf-token` metadata), which only the signed-in console page can read.
    func consoleAccount(_ context: CallContext) async throws(ServiceError) -> String {
        guard let token = context.consoleSessionToken else { throw ServiceError.secretKeyInvalid }
        let session: ConsoleSessionRecord?
        do { session = try await consoleSessions.consoleSession(token: token) } catch { throw ServiceError.store(error) }
        guard let session else {
            throw ServiceError(.secretKeyInvalid, "the console session is unknown or expired; sign in again with the account's secret key")
        }
        if !Self.readOnlyMethods.contains(context.method), context.metadataValue("x-csrf-token") != session.csrfToken {
            throw ServiceError(.permissionDenied, "this change needs the console session's CSRF token (x-csrf-token); reload the console page")
        }
        return session.accountID
    }
}
