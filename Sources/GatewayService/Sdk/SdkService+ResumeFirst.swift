extension SdkService {
    /// What a session's call is answered with when it fails with `error`: an ownership
    /// refusal on a connection whose event stream this replica ended asking for a resume
    /// (fenced off, or the session moved, while the call was on its way) becomes that resume
    /// error, since the refusal's `disconnected` event can no longer reach the connection.
    func answering(_ error: ServiceError, token: String, _ context: CallContext) -> ServiceError {
        guard error.isOwnershipRefusal, let resume = registry.resumeFirst(token, connection: context.connectionID) else { return error }
        return resume
    }

    /// Runs a session's call, its failure answered as ``answering(_:token:_:)`` says.
    func answering<T>(token: String, _ context: CallContext, _ body: () async throws(ServiceError) -> T) async throws(ServiceError) -> T {
        do { return try await body() } catch { throw answering(error, token: token, context) }
    }
}
