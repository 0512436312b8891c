import GatewayClient

/// Short lower-case names for pos-lane's output (the wire's names: `reader_lost`, `in_use`, ...).
enum LaneEventNames {
    static func reason(_ reason: DisconnectReason) -> String {
        switch reason {
        case .disconnectRequested: "requested"
        case .rebootRequested: "reboot_requested"
        case .readerLost: "reader_lost"
        case .replaced: "replaced"
        case .adminReleased: "admin_released"
        case .sessionExpired: "session_expired"
        case .readerUnregistered: "reader_unregistered"
        case .storeRolledBack: "store_rolled_back"
        case .unknown: "unspecified"
        case .securityReboot, .criticallyLowBattery, .poweredOff, .bluetoothDisabled, .idlePowerDown, .bluetoothSignalLost, .appInBackground:
            mobileReason(reason)
        }
    }

    static func network(_ reader: Reader) -> String {
        switch reader.networkStatus {
        case .online: "online"
        case .offline: "offline"
        case .unknown: "unspecified"
        }
    }

    static func activity(_ reader: Reader) -> String {
        switch reader.activity {
        case .idle: "idle"
        case .collecting: "collecting"
        case .confirming: "confirming"
        case .updating: "updating"
        case .rebooting: "rebooting"
        case .unknown: "unspecified"
        }
    }
}
