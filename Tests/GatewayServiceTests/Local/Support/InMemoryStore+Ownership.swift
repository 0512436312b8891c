import Foundation
import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
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
            switch result {
            case .granted(_, _, let actions), .refused(_, let actions): tables.record(actions, atUnixMs: clock.nowUnixMs)
            }
            return (result, record)
        }
    }

    func disconnect(reader: ReaderID, session: SessionID, generation: OwnershipGeneration) async throws(StoreError) -> ReleaseResult {
        try released(reader) { $0.disconnect(session: session, generation: generation) }
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
                let result = machine.sessionExpired(owner.session)
                released.append(OwnershipStore.ExpiredOwnership(reader: reader, result: result))
                tables.ownership[reader] = machine
                if case .released(_, _, let actions) = result { tables.record(actions, atUnixMs: now) }
            }
            return released
        }
    }

    func commandMark(reader: ReaderID, session: SessionID) async throws(StoreError) -> ReaderCommand? {
        try run { tables in
            tables.ownership[reader]?.commandInProgress.flatMap { $0.session == session ? $0.command : nil }
        }
    }

    /// Feeds the reader's machine a release and appends the history rows it asks for.
    private func released(_ reader: ReaderID, _ event: (inout ReaderOwnershipStateMachine) -> ReleaseResult) throws(StoreError) -> ReleaseResult {
        let now = clock.nowUnixMs
        return try run { tables in
            guard var machine = tables.ownership[reader] else { return .unchanged(.unknownReader) }
            let result = event(&machine)
            tables.ownership[reader] = machine
            if case .released(_, _, let actions) = result { tables.record(actions, atUnixMs: now) }
            return result
        }
    }
}

/// What the fleet admin surface reads and forces: the machine's state as the row, its
/// history rows, and its admin release.
extension InMemoryStore: OwnershipAdministration {
    func ownership(of reader: ReaderID) async throws(StoreError) -> ReaderOwnershipRecord? {
        try run { tables in
            guard let machine = tables.ownership[reader] else { return nil }
            let since = tables.history.last { $0.reader == reader }.map(\.at)
            let online: Bool
            if case .online = machine.link { online = true } else { online = false }
            return ReaderOwnershipRecord(
                reader: reader, owner: machine.owner, generation: machine.generation, since: since,
                commandInProgress: machine.commandInProgress, online: online, epoch: machine.epoch ?? LinkEpoch(0)
            )
        }
    }

    func adminRelease(reader: ReaderID) async throws(StoreError) -> ReleaseResult {
        try released(reader) { $0.adminRelease() }
    }

    /// The release and its audit row together, the key named in the history row (as the
    /// store's one statement does).
    func adminRelease(reader: ReaderID, audit: AuditEntry) async throws(StoreError) -> ReleaseResult {
        let result = try released(reader) { $0.adminRelease() }
        let now = clock.nowUnixMs
        try run { tables in
            var entry = audit
            if case .released = result, let last = tables.history.indices.last, tables.history[last].reader == reader {
                tables.history[last].byKeyID = audit.actor.keyID
                tables.history[last].byKeyName = audit.actor.keyName
                entry.detail = "released at generation \(tables.history[last].generation.rawValue)"
            }
            tables.appendAudit(entry, atUnixMs: now)
        }
        return result
    }

    func history(of reader: ReaderID, before: Int64?, limit: Int) async throws(StoreError) -> [OwnershipHistoryRecord] {
        try run { tables in
            Array(tables.history.filter { $0.reader == reader && (before == nil || $0.id < before!) }.reversed().prefix(limit))
        }
    }
}

extension InMemoryStore.Tables {
    /// Appends the history rows the machine's actions ask for, naming the sessions' POS
    /// devices as their rows have them now (as the store's statement does when it writes).
    mutating func record(_ actions: [OwnershipAction], atUnixMs: Int64) {
        for case .recordHistory(let event) in actions {
            let sessions = self.sessions
            func posDevice(_ owner: ReaderOwner?) -> String? {
                owner.flatMap { owner in sessions.values.first { $0.id == owner.session.rawValue }?.posDeviceID }
            }
            history.append(OwnershipHistoryRecord(
                id: Int64(history.count + 1), reader: event.reader, from: event.from, to: event.to,
                fromPosDevice: posDevice(event.from), toPosDevice: posDevice(event.to), generation: event.generation,
                reason: event.reason, at: Date(timeIntervalSince1970: Double(atUnixMs) / 1000)
            ))
        }
    }
}
