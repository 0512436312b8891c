import GatewayDomain

extension ReaderRegistry {
    /// Compares `row` with what this replica remembers of its reader (the live link here,
    /// the sessions here holding it): nil when the row is at or past it, else the rollback
    /// to repair (see ``StoreRollback/check(_:against:)``).
    public func storeRollback(of row: OwnershipRow) -> StoreRollback? {
        let link = links[row.reader]
        var holding: [StoreRollback.Holder] = []
        for token in holders[row.reader] ?? [] {
            guard let session = sessions[token] else { continue }
            holding.append(StoreRollback.Holder(session: session.id, generation: session.generation))
        }
        let memory = StoreRollback.Memory(linkEpoch: link?.epoch, linkKnownGeneration: link?.knownGeneration ?? .initial, holders: holding)
        return StoreRollback.check(row, against: memory)
    }

    /// The store repaired `rollback` (the reader released at a new generation): each session
    /// here whose ownership vanished, if it still holds the reader at that generation, hears
    /// it lost the reader (`STORE_ROLLED_BACK`) and its next command fails as not connected;
    /// its commands on the reader's link here are failed after the event. Returns how many
    /// sessions were told, with the actions.
    public mutating func storeRolledBack(_ rollback: StoreRollback, nowUnixMs: Int64) -> (told: Int, actions: [RegistryAction]) {
        var told = 0
        var events: [RegistryAction] = []
        var later: [RegistryAction] = []
        for holder in rollback.vanished {
            guard let token = tokens[holder.session], let index = sessions.index(forKey: token),
                  sessions.values[index].reader == rollback.reader, sessions.values[index].generation == holder.generation
            else { continue }
            let loss = ReaderLoss(reader: rollback.reader, reason: .storeRolledBack, generation: holder.generation, takenByLane: nil, takenByPosDeviceID: nil)
            if let send = deliver(.disconnected(loss), toSessionAt: index, nowUnixMs: nowUnixMs) { events.append(send) }
            told += 1
            setReader(nil, ofSessionAt: index, token: token)
            sessions.values[index].home = nil
            sessions.values[index].pendingRefusal = .notConnected
            guard let link = links.index(forKey: rollback.reader) else { continue }
            let linkID = links.values[link].id
            let interrupted = links.values[link].pending.filter { $0.value.session == holder.session }
            for id in interrupted.keys.sorted() {
                links.values[link].pending[id] = nil
                later.append(.failCommand(CommandKey(link: linkID, command: id), .refusal(.notConnected)))
            }
            if interrupted.values.contains(where: \.isCollect) { later.append(.cancelOnReader(linkID)) }
        }
        return (told, events + later)
    }
}
