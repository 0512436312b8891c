import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension FleetAdminService {
    /// The ownership of each reader, with the owner's lane and pos device from the live sessions.
    func ownershipMessages(_ readers: [ReaderRecord]) async throws(ServiceError) -> [ReaderGatewayV1.ReaderOwnership] {
        var messages: [ReaderGatewayV1.ReaderOwnership] = []
        for record in readers {
            let stored: ReaderOwnershipRecord?
            do { stored = try await ownership.ownership(of: ReaderID(record.id)) } catch { throw ServiceError.store(error) }
            var message = ReaderGatewayV1.ReaderOwnership()
            message.readerID = record.id
            message.readerLabel = record.label
            let online = registry.linkStatus(of: ReaderID(record.id)) != nil
            message.networkStatus = online ? .online : .offline
            if let stored {
                message.generation = UInt64(stored.generation.rawValue)
                message.inTransaction = stored.commandInProgress != nil
                if let since = stored.since { message.sinceUnixMs = Int64(since.timeIntervalSince1970 * 1000) }
                if let owner = stored.owner { message.owner = ownerMessage(owner) }
            }
            messages.append(message)
        }
        return messages
    }

    func ownerMessage(_ owner: ReaderOwner) -> ReaderGatewayV1.ReaderOwner {
        var message = ReaderGatewayV1.ReaderOwner()
        message.sessionID = owner.session.rawValue
        message.laneLabel = owner.lane.rawValue
        message.posDeviceID = registry.session(id: owner.session)?.posDeviceID ?? ""
        return message
    }

    /// The reader's history rows, newest first, each naming its sessions' lanes and POS devices
    /// as the row recorded them when it was written (never the sessions as they are now).
    func historyMessages(_ reader: ReaderID, limit: Int) async throws(ServiceError) -> [ReaderGatewayV1.OwnershipHistoryEntry] {
        let records: [OwnershipHistoryRecord]
        do { records = try await ownership.history(of: reader, before: nil, limit: limit) } catch { throw ServiceError.store(error) }
        func recorded(_ owner: ReaderOwner, posDevice: String?) -> ReaderGatewayV1.ReaderOwner {
            var message = ReaderGatewayV1.ReaderOwner()
            message.sessionID = owner.session.rawValue
            message.laneLabel = owner.lane.rawValue
            message.posDeviceID = posDevice ?? ""
            return message
        }
        return records.map { record in
            let from = record.from.map { recorded($0, posDevice: record.fromPosDevice) }
            let to = record.to.map { recorded($0, posDevice: record.toPosDevice) }
            var entry = ReaderGatewayV1.OwnershipHistoryEntry()
            entry.readerID = record.reader.rawValue
            entry.atUnixMs = Int64(record.at.timeIntervalSince1970 * 1000)
            entry.generation = UInt64(record.generation.rawValue)
            switch record.reason {
            case .connected:
                entry.reason = .connected
                entry.session = to
            case .replaced:
                entry.reason = .replaced
                entry.session = to
                entry.previousOwner = from
            case .refusedBusy:
                entry.reason = .refusedBusy
                entry.session = to
                entry.previousOwner = from
            case .released:
                entry.reason = .released
                entry.session = from
            case .sessionExpired:
                entry.reason = .sessionExpired
                entry.session = from
            case .readerLost:
                entry.reason = .readerLost
                entry.previousOwner = from
            case .adminReleased:
                entry.reason = .adminReleased
                entry.previousOwner = from
                entry.releasedByKeyID = record.byKeyID ?? ""
                entry.releasedByKeyName = record.byKeyName ?? ""
            }
            return entry
        }
    }
}
