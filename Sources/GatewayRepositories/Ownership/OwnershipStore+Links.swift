import GatewayCore
import GatewayDomain
import GatewayPostgres

/// The reader's own link: attached on a node, lost on a live node, detached when its node died
/// or drains, released when it stayed detached past the offline bound.
///
/// A re-attach keeps the owner. A reader loses its owner only through ``readerLost(_:epoch:)``
/// (its link ended on a live replica) or ``releaseDetachedReaders(offlineBound:limit:)`` (its
/// link was detached and it did not come back in time).
extension OwnershipStore {
    /// The reader's link with `epoch` went down on this (live) replica: the reader is offline and
    /// its owner loses it. A link that is not the current one, or was detached, changes nothing
    /// (``LinkEventResult/ignoredStale``).
    public func readerLost(_ reader: ReaderID, epoch: LinkEpoch) async throws(StoreError) -> LinkEventResult {
        let rows = try await client.query(OwnershipStatements.readerLost, [PostgresValue(reader.rawValue), PostgresValue(epoch.rawValue)])
        let row = try Self.single(rows, "reader lost")
        switch try row.decode(String.self, "outcome") {
        case "unknown_reader": return .unknownReader
        case "ignored_stale": return .ignoredStale
        case "updated": return .updated
        default:
            var machine = try FoundRow(released: row).machine(reader: reader, link: .online(epoch))
            return Self.withoutHistory(machine.readerLost(epoch: epoch))
        }
    }

    /// The reader attached a new link on `node`; the store assigns the next epoch unless one is
    /// given. The owner keeps the reader (the result is ``LinkEventResult/updated`` with the new
    /// epoch, ``LinkEventResult/ignoredStale`` for an epoch not newer than the stored one, or
    /// ``LinkEventResult/unknownReader``).
    ///
    /// Throws ``StoreError/Code/nodeNotRegistered`` when `node` has no row in `gateway_nodes`
    /// (it was reaped): the caller must close the link and fence itself. A nil `node` records
    /// no node (a gateway that does not register itself).
    ///
    /// Two statements (creating the row on a reader's first attach, then the attach); both are
    /// idempotent, and attaches are rare.
    public func readerAttached(_ reader: ReaderID, node: String?, epoch: LinkEpoch? = nil) async throws(StoreError) -> (LinkEventResult, LinkEpoch?) {
        // Every attach but a registered reader's first finds its ownership row: the row is
        // created (and the attach run again) only when the attach did not update one, so a
        // reconnect storm costs one statement per reader here, not two. Whatever the outcome,
        // a registered reader has its row afterwards, as when the row was created first.
        var outcome = try await attach(reader, node: node, epoch: epoch)
        if outcome.name != "updated" {
            try await client.execute(OwnershipStatements.readerRow, [PostgresValue(reader.rawValue)])
            outcome = try await attach(reader, node: node, epoch: epoch)
        }
        let row = outcome.row
        switch outcome.name {
        case "unknown_reader": return (.unknownReader, nil)
        case "ignored_stale": return (.ignoredStale, nil)
        case "node_not_registered":
            throw StoreError(
                .nodeNotRegistered,
                "node \(node ?? "-") is not registered (it was reaped after missing its lease); close its links and register again"
            )
        case "updated": return (.updated, try row.decode(Int64?.self, "link_epoch").map(LinkEpoch.init))
        case let other:
            throw StoreError(.decodingFailed, "unexpected attach outcome \(other.debugDescription); the store and the gateway versions may differ")
        }
    }

    /// One run of the attach statement: its outcome and row.
    private func attach(_ reader: ReaderID, node: String?, epoch: LinkEpoch?) async throws(StoreError) -> (name: String, row: PostgresRow) {
        let rows = try await client.query(
            OwnershipStatements.readerAttached,
            [PostgresValue(reader.rawValue), epoch.map { PostgresValue($0.rawValue) }, node.map { PostgresValue($0) }]
        )
        let row = try Self.single(rows, "reader attached")
        return (try row.decode(String.self, "outcome"), row)
    }

    /// The reader attached a new link, recorded without a node (see
    /// ``readerAttached(_:node:epoch:)``).
    public func readerAttached(_ reader: ReaderID, epoch: LinkEpoch? = nil) async throws(StoreError) -> (LinkEventResult, LinkEpoch?) {
        try await readerAttached(reader, node: nil, epoch: epoch)
    }

    /// The replica holding the reader's link of `epoch` drains (or found its node reaped): the
    /// link is detached, the owner keeps the reader until the offline bound passes without a
    /// re-attach. Fenced by `epoch`: returns false (and changes nothing) when `epoch` is not the
    /// reader's current online link or the link is already detached.
    public func readerDetached(_ reader: ReaderID, epoch: LinkEpoch) async throws(StoreError) -> Bool {
        let rows = try await client.query(OwnershipStatements.readerDetached, [PostgresValue(reader.rawValue), PostgresValue(epoch.rawValue)])
        return !rows.isEmpty
    }

    /// Releases readers whose link has been detached for `offlineBound` or longer (at most
    /// `limit` per call), like a lost reader: offline, and the owner loses it (history reason
    /// `reader_lost`).
    ///
    /// Run it periodically on every replica: concurrent callers skip each other's rows and each
    /// release happens exactly once. Each returned entry is a reader that went offline; its
    /// ``ExpiredOwnership/result`` is ``ReleaseResult/released(_:generation:actions:)`` with the
    /// actions to run (notify the owner, fail its next command, cancel its transaction) when it
    /// had an owner, ``ReleaseResult/unchanged(_:)`` when nobody owned it.
    public func releaseDetachedReaders(offlineBound: Duration, limit: Int = 500) async throws(StoreError) -> [ExpiredOwnership] {
        let rows = try await client.query(
            OwnershipStatements.releaseDetached,
            [PostgresValue(offlineBound.seconds), PostgresValue(max(1, limit))]
        )
        var released: [ExpiredOwnership] = []
        for row in rows {
            let reader = ReaderID(try row.decode(String.self, "reader_id"))
            let epoch = LinkEpoch(try row.decode(Int64.self, "link_epoch"))
            var machine = try FoundRow(released: row).machine(reader: reader, link: .online(epoch))
            let result: ReleaseResult
            switch Self.withoutHistory(machine.readerLost(epoch: epoch)) {
            case .ownerLost(let owner, let generation, let actions): result = .released(owner, generation: generation, actions: actions)
            case .updated, .ignoredStale, .unknownReader: result = .unchanged(nil)
            }
            released.append(ExpiredOwnership(reader: reader, result: result))
        }
        return released
    }
}
