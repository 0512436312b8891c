import GatewayChannel
import GatewayWire

/// Where a ``TerminalClient`` gets a connection token whenever it needs a session (Stripe
/// Terminal's `ConnectionTokenProvider`): before the first call, and again after the gateway
/// ended a session (its lease ran out, an admin closed it) or the app closed it.
///
/// Fetch the token from your backend, which mints it with the account's secret key
/// (`FleetAdmin.CreateConnectionToken`, `AdminClient.createConnectionToken`, or
/// `gatewayctl tokens create`); never ship the secret key in the app.
///
/// ```swift
/// struct BackendTokens: ConnectionTokenProvider {
///     func fetchConnectionToken() async throws -> String {
///         try await backend.post("/connection_token").secret   // your backend's route
///     }
/// }
/// let terminal = TerminalClient(connection: connection, tokenProvider: BackendTokens(), posDeviceID: "pos-3", laneLabel: "Lane 3")
/// let readers = try await terminal.discoverReaders(locationID: "tml_...")  // opens the session first
/// ```
public protocol ConnectionTokenProvider: Sendable {
    /// A fresh connection token (`pst_…`). An error fails the call that needed the session
    /// with `connectionTokenProviderCompletedWithError` naming it.
    func fetchConnectionToken() async throws -> String
}

/// The provider and the names every session it opens carries.
struct ProvidedSessions: Sendable {
    let provider: any ConnectionTokenProvider
    let posDeviceID: String
    let laneLabel: String
}

extension TerminalClient {
    /// The open session's token; without one, a session opened with the provider's token
    /// (one open at a time, whoever asks), or the error for calls made without a session.
    func sessionToken() async throws -> String {
        if let token = feedSession({ $0.session?.resumeToken }) { return token }
        guard let provided = providedSessions else {
            throw RPCError(code: .failedPrecondition, reason: .sessionExpired, message: "there is no open session; call openSession first, or give the client a ConnectionTokenProvider")
        }
        let open = feedSession { machine in
            machine.providedOpenNeeded {
                Task { try await self.openProvidedSession(provided) }
            }
        }
        defer { feedSession { $0.providedOpenEnded(open) } }
        return try await open.value.resumeToken
    }

    private func openProvidedSession(_ provided: ProvidedSessions) async throws -> TerminalSession {
        let token: String
        do {
            token = try await provided.provider.fetchConnectionToken()
        } catch {
            throw RPCError(
                code: .unauthenticated, reason: .connectionTokenInvalid,
                message: "the connection token provider failed: \(error); check the backend route that mints connection tokens"
            )
        }
        return try await open(connectionToken: token, posDeviceID: provided.posDeviceID, laneLabel: provided.laneLabel, resumeToken: "")
    }
}
