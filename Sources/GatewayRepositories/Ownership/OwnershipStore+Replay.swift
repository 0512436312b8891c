import GatewayDomain
import GatewayPostgres

extension OwnershipStore {
    /// The ownership row as a statement found it, before its change.
    struct FoundRow {
        var generation: OwnershipGeneration
        var owner: ReaderOwner?
        var command: ReaderCommand?

        init(_ row: PostgresRow, generation: String, session: String, lane: String, command: String) throws(StoreError) {
            self.generation = OwnershipGeneration(try row.decode(Int64?.self, generation) ?? 0)
            if let session = try row.decode(String?.self, session) {
                owner = ReaderOwner(session: SessionID(session), lane: LaneLabel(try row.decode(String?.self, lane) ?? ""))
            }
            self.command = try row.decode(String?.self, command).flatMap(ReaderCommand.init(rawValue:))
        }

        /// The row of a statement that ended an ownership: the generation it returns is the new
        /// one, so the machine, replaying the change from one below it, ends at the row's (even
        /// when the change jumped to the timeline's floor, migration 0020).
        init(released row: PostgresRow) throws(StoreError) {
            try self.init(row, generation: "generation", session: "from_session_id", lane: "from_lane_label", command: "interrupted_command")
            if owner != nil { generation = OwnershipGeneration(generation.rawValue - 1) }
        }

        func machine(reader: ReaderID, link: ReaderOwnershipStateMachine.Link) -> ReaderOwnershipStateMachine {
            ReaderOwnershipStateMachine(
                reader: reader,
                link: link,
                owner: owner,
                generation: generation,
                commandInProgress: command.flatMap { command in owner.map { CommandInProgress(command: command, session: $0.session) } }
            )
        }
    }

    static func single(_ rows: PostgresRows, _ what: String) throws(StoreError) -> PostgresRow {
        guard let row = rows.first else {
            throw StoreError(.decodingFailed, "the \(what) statement returned no row; the ownership schema may not be migrated (run the migrations)")
        }
        return row
    }

    static func refusal(_ outcome: String) throws(StoreError) -> OwnershipRefusal {
        guard let refusal = OwnershipRefusal(rawValue: outcome == "refused_busy" ? "reader_busy" : outcome) else {
            throw StoreError(.decodingFailed, "unexpected ownership outcome \(outcome.debugDescription); the store and the gateway versions may differ")
        }
        return refusal
    }

    /// The SQL spelling of a connect decision.
    static func outcome(of result: ConnectResult) -> String {
        switch result {
        case .granted(.connected, _, _): "connected"
        case .granted(.replaced, _, _): "replaced"
        case .granted(.alreadyOwner, _, _): "already_owner"
        case .refused(.readerBusy, _): "refused_busy"
        case .refused(let refusal, _): refusal.rawValue
        }
    }

    static func stripHistory(_ actions: [OwnershipAction]) -> [OwnershipAction] {
        actions.filter { if case .recordHistory = $0 { false } else { true } }
    }

    static func withoutHistory(_ result: ConnectResult) -> ConnectResult {
        switch result {
        case .granted(let grant, let generation, let actions): .granted(grant, generation: generation, actions: stripHistory(actions))
        case .refused(let refusal, let actions): .refused(refusal, actions: stripHistory(actions))
        }
    }

    static func withoutHistory(_ result: ReleaseResult) -> ReleaseResult {
        if case .released(let owner, let generation, let actions) = result {
            return .released(owner, generation: generation, actions: stripHistory(actions))
        }
        return result
    }

    static func withoutHistory(_ result: LinkEventResult) -> LinkEventResult {
        if case .ownerLost(let owner, let generation, let actions) = result {
            return .ownerLost(owner, generation: generation, actions: stripHistory(actions))
        }
        return result
    }
}
