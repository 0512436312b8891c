import GatewayDomain
import GatewayRepositories
import GatewayWire

extension FleetAdminService {
    /// The reader's ownership history with its Bluetooth link endings merged in (reason
    /// MOBILE_LINK_ENDED, with the disconnect reason its device gave), newest first, at most
    /// `limit` entries.
    func historyWithLinkEndings(_ reader: ReaderID, limit: Int) async throws(ServiceError) -> [ReaderGatewayV1.OwnershipHistoryEntry] {
        let ownershipEntries = try await historyMessages(reader, limit: limit)
        let endings: [BluetoothStore.LinkEnding]
        do { endings = try await linkEndings.linkEndings(reader: reader.rawValue, limit: limit) } catch {
            throw ServiceError.store(error)
        }
        guard !endings.isEmpty else { return ownershipEntries }
        let ended = endings.map { ending in
            var entry = ReaderGatewayV1.OwnershipHistoryEntry()
            entry.readerID = reader.rawValue
            entry.reason = .mobileLinkEnded
            entry.atUnixMs = Int64(ending.at.timeIntervalSince1970 * 1000)
            entry.mobileDisconnectReason = ending.reason
            entry.linkReconnecting = ending.reconnecting
            return entry
        }
        // Newest first; at equal times the link ending is the older (it is recorded first).
        let merged = (ownershipEntries.enumerated().map { ($0.element, 1, $0.offset) } + ended.enumerated().map { ($0.element, 0, $0.offset) })
            .sorted { ($0.0.atUnixMs, $0.1, -$0.2) > ($1.0.atUnixMs, $1.1, -$1.2) }
        // Equal generations: a link ending carries the generation it happened in.
        var generation: UInt64 = 0
        var result: [ReaderGatewayV1.OwnershipHistoryEntry] = []
        for (entry, _, _) in merged.reversed() {
            var entry = entry
            if entry.reason == .mobileLinkEnded { entry.generation = generation } else { generation = entry.generation }
            result.append(entry)
        }
        return Array(result.reversed().prefix(limit))
    }
}
