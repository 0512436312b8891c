import GatewayDomain
import GatewayPostgres
import GatewayRepositories

/// The ownership rows the SDK surface changes besides a connect's claim: PostgreSQL's
/// ``OwnershipStore`` in the gateway, ``ReaderOwnershipStateMachine``s in memory in the
/// services' own tests.
protocol OwnershipRepository: Sendable {
    func disconnect(reader: ReaderID, session: SessionID, generation: OwnershipGeneration) async throws(StoreError) -> ReleaseResult
    func commandStarted(
        _ command: ReaderCommand, reader: ReaderID, session: SessionID, generation: OwnershipGeneration
    ) async throws(StoreError) -> CommandStartResult
    func commandFinished(
        _ command: ReaderCommand, reader: ReaderID, session: SessionID, generation: OwnershipGeneration
    ) async throws(StoreError) -> CommandFinishResult
    /// Ends the ownerships of sessions whose lease ran out (at most `limit`).
    func expireSessions(limit: Int) async throws(StoreError) -> [OwnershipStore.ExpiredOwnership]
    /// The transaction command `session` has marked `reader` in use with (nil: none).
    func commandMark(reader: ReaderID, session: SessionID) async throws(StoreError) -> ReaderCommand?
}

/// A connect's claim, decided with the reader's row for the answer: PostgreSQL's
/// ``OwnershipClaimBatcher`` in the gateway (claims that arrive together share a statement).
protocol ReaderClaims: Sendable {
    func claim(
        _ reader: ReaderID, _ request: ConnectRequest, readingRecordOf account: String
    ) async throws(StoreError) -> (result: ConnectResult, record: ReaderRecord?)
}

extension OwnershipStore: OwnershipRepository {}

extension OwnershipClaimBatcher: ReaderClaims {}

/// What the fleet admin surface reads and forces of readers' ownership: PostgreSQL's
/// ``OwnershipStore`` in the gateway, ``ReaderOwnershipStateMachine``s in memory in the
/// services' own tests.
protocol OwnershipAdministration: Sendable {
    /// Who owns `reader` now (nil: no such reader has attached yet).
    func ownership(of reader: ReaderID) async throws(StoreError) -> ReaderOwnershipRecord?
    /// Releases the reader from whichever session holds it.
    func adminRelease(reader: ReaderID) async throws(StoreError) -> ReleaseResult
    /// The same, with the audit row `audit` written in the release's statement (and the key
    /// named in its history row).
    func adminRelease(reader: ReaderID, audit: AuditEntry) async throws(StoreError) -> ReleaseResult
    /// The reader's history rows, newest first (those before the row `before` only), at most `limit`.
    func history(of reader: ReaderID, before: Int64?, limit: Int) async throws(StoreError) -> [OwnershipHistoryRecord]
}

extension OwnershipStore: OwnershipAdministration {}
