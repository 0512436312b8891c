import GatewayRepositories
import GatewayWire

extension FleetAdminService {
    /// The account and key of the console session whose cookie came with the call's WebSocket
    /// upgrade: the key it signed in with, read afresh (a revoked or expired key ends the
    /// session's use at once). A call that changes something (a method whose permission is a
    /// write) must also carry the session's CSRF token (`x-csrf-token` metadata), which only
    /// the signed-in console page can read.
    func consoleAccess(_ context: CallContext) async throws(ServiceError) -> AdminAccess {
        guard let token = context.consoleSessionToken else { throw ServiceError.secretKeyInvalid }
        let session: ConsoleSessionRecord?
        do { session = try await consoleSessions.consoleSession(token: token) } catch { throw ServiceError.store(error) }
        guard let session else {
            throw ServiceError(.secretKeyInvalid, "the console session is unknown or expired; sign in again with the account's secret key")
        }
        let changes = FleetAdminMethod(path: context.method).map { $0.requirement.level == .write } ?? true
        if changes, context.metadataValue("x-csrf-token") != session.csrfToken {
            throw ServiceError(.permissionDenied, "this change needs the console session's CSRF token (x-csrf-token); reload the console page")
        }
        guard let keyID = session.keyID else { return .accountKey(of: session.accountID) }
        let now = configuration.clock.date
        let key: ApiKeyRecord?
        do { key = try await accounts.key(keyID, account: session.accountID, now: now) } catch { throw ServiceError.store(error) }
        guard let key else {
            throw ServiceError(.secretKeyInvalid, "the key this console session signed in with is gone; sign in again with a secret key")
        }
        if case .retired(let key, let retirement) = ApiKeyLookup.decide(key, previous: nil, now: now) { throw KeyRefusal.retired(key, retirement) }
        return AdminAccess(key: key)
    }
}
