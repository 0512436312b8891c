import GatewayDomain
import GatewayPostgres
import GatewayRepositories
@testable import GatewayService

/// `reader_ownership` as one ``ReaderOwnershipStateMachine`` per reader: the rules the
/// store's statements encode, decided by the machine they were written from.
extension InMemoryStore: OwnershipRepository, ReaderClaims {
    /// Feeds the reader's machine one event and keeps what it became; `unknown` when the
    /// store has no such reader.
    private func onMachine<Result>(
        of reader: ReaderID, unknown: Result, _ event: (inout ReaderOwnershipStateMachine) -> Result
    ) throws(StoreError) -> Result {
        try run { tables in
            guard var machine = tables.ownership[reader] else { return unknown }
            let result = event(&machine)
            tables.ownership[reader] = machine
            return result
        }
    }

    func claim(
        _ reader: ReaderID, _ request: ConnectRequest, readingRecordOf account: String
    ) async throws(StoreError) -> (result: ConnectResult, record: ReaderRecord?) {
        try run { tables in
            guard var machine = tables.ownership[reader], let record = tables.readers[reader.rawValue], record.accountID == account else {
                return (.refused(.unknownReader, actions: []), nil)
            }
            let result = machine.connect(request)
            tables.ownership[reader] = machine
            return (result, record)
        }
    }

    func disconnect(reader: ReaderID, session: SessionID, generation: OwnershipGeneration) async throws(StoreError) -> ReleaseResult {
        try onMachine(of: reader, unknown: .unchanged(.unknownReader)) { $0.disconnect(session: session, generation: generation) }
    }

    func commandStarted(
        _ command: ReaderCommand, reader: ReaderID, session: SessionID, generation: OwnershipGeneration
    ) async throws(StoreError) -> CommandStartResult {
        try onMachine(of: reader, unknown: .refused(.unknownReader)) { $0.commandStarted(command, session: session, generation: generation) }
    }

    func commandFinished(
        _ command: ReaderCommand, reader: ReaderID, session: SessionID, generation: OwnershipGeneration
    ) async throws(StoreError) -> CommandFinishResult {
        try onMachine(of: reader, unknown: .ignored(.unknownReader)) { $0.commandFinished(command, session: session, generation: generation) }
    }

    func expireSessions(limit: Int) async throws(StoreError) -> [OwnershipStore.ExpiredOwnership] {
        let now = clock.nowUnixMs
        return try run { tables in
            let expired = Set(tables.sessions.values.filter { $0.leaseExpiresUnixMs <= now }.map(\.id))
            var released: [OwnershipStore.ExpiredOwnership] = []
            for (reader, var machine) in tables.ownership.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where released.count < limit {
                guard let owner = machine.owner, expired.contains(owner.session.rawValue) else { continue }
                released.append(OwnershipStore.ExpiredOwnership(reader: reader, result: machine.sessionExpired(owner.session)))
                tables.ownership[reader] = machine
            }
            return released
        }
    }

    func commandMark(reader: ReaderID, session: SessionID) async throws(StoreError) -> ReaderCommand? {
        try run { tables in
            tables.ownership[reader]?.commandInProgress.flatMap { $0.session == session ? $0.command : nil }
        }
    }
}
