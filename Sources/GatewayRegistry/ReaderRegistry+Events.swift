import GatewayDomain
import GatewayWire

extension ReaderRegistry {
    /// The `ReaderDisconnected` event a displaced session receives: why, and when another
    /// session took the reader, which lane and device did.
    public static func disconnected(
        reader: ReaderID, reason: ReaderGatewayV1.DisconnectReason, generation: OwnershipGeneration,
        takenByLane: String?, takenByPosDeviceID: String?
    ) -> ReaderGatewayV1.ReaderDisconnected {
        var disconnected = ReaderGatewayV1.ReaderDisconnected()
        disconnected.readerID = reader.rawValue
        disconnected.reason = reason
        disconnected.generation = UInt64(max(0, generation.rawValue))
        if let takenByLane, reason == .replaced {
            disconnected.takenByLaneLabel = takenByLane
            disconnected.takenByPosDeviceID = takenByPosDeviceID ?? ""
            disconnected.message = "\(takenByLane) connected to the reader"
        } else {
            disconnected.message = describe(reason)
        }
        return disconnected
    }

    /// What a disconnect reason means, for the event's message.
    public static func describe(_ reason: ReaderGatewayV1.DisconnectReason) -> String {
        switch reason {
        case .requested: "the session disconnected the reader"
        case .replaced: "another session connected to the reader"
        case .readerLost: "the reader went offline (network lost, powered off or heartbeats stopped)"
        case .rebootRequested: "the reader rebooted"
        case .adminReleased: "a fleet admin released the reader"
        case .sessionExpired: "the session's lease ran out"
        case .readerUnregistered: "the reader was unregistered"
        case .storeRolledBack: "the store lost the connect that granted the reader (a database failover without its last transactions); connect again"
        default: "the reader disconnected"
        }
    }
}
