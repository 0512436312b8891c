import GatewayChannel
import GatewayWire

// What the client's models print: readable fields, secrets redacted. A session's resume
// token authorises its calls and never appears in a description (nor in a log line made
// from one); readers and updates print as their messages do (``ProtobufDescription``).

extension TerminalSession: CustomStringConvertible {
    public var description: String {
        var d = ProtobufDescription("TerminalSession")
        d.string("sessionID", sessionID)
        d.secret("resumeToken", resumeToken)
        d.value("lease", lease, isDefault: false)
        d.value("resumed", resumed, isDefault: !resumed)
        if let connectedReader { d.value("connectedReader", connectedReader, isDefault: false) }
        return d.text
    }
}

extension DiscoveredReader: CustomStringConvertible {
    public var description: String {
        var d = ProtobufDescription("DiscoveredReader")
        d.string("discoveryID", discoveryID)
        d.value("reader", reader, isDefault: false)
        return d.text
    }
}

extension DisconnectInfo: CustomStringConvertible {
    public var description: String {
        var d = ProtobufDescription("DisconnectInfo")
        d.string("readerID", readerID)
        d.value("reason", "\(reason)", isDefault: false)
        d.string("takenByLaneLabel", takenByLaneLabel)
        d.string("takenByPosDeviceID", takenByPosDeviceID)
        d.value("generation", generation, isDefault: generation == 0)
        d.string("message", message)
        return d.text
    }
}

extension TerminalEvent: CustomStringConvertible {
    public var description: String {
        switch self {
        case .disconnected(let info): "disconnected(\(info))"
        case .readerStatusChanged(let reader): "readerStatusChanged(\(reader))"
        case .reconnectStarted(let readerID): "reconnectStarted(readerID: \(readerID.debugDescription))"
        case .reconnectSucceeded(let readerID): "reconnectSucceeded(readerID: \(readerID.debugDescription))"
        case .reconnectFailed(let readerID, let error): "reconnectFailed(readerID: \(readerID.debugDescription), \(error))"
        case .updateProgress(let readerID, let progress): "updateProgress(readerID: \(readerID.debugDescription), progress: \(progress))"
        case .updateAvailable(let readerID, let update): "updateAvailable(readerID: \(readerID.debugDescription), \(update))"
        case .updateStarted(let readerID, let update): "updateStarted(readerID: \(readerID.debugDescription), \(update))"
        case .connectionLost(let error): "connectionLost(\(error))"
        case .sessionResumed(let session): "sessionResumed(\(session))"
        case .sessionEnded(let error): "sessionEnded(\(error))"
        }
    }
}

extension MobileReaderEvent: CustomStringConvertible {
    public var description: String {
        switch self {
        case .didStartReconnect(let serial, let reason): "didStartReconnect(serialNumber: \(serial.debugDescription), reason: \(reason))"
        case .didSucceedReconnect(let serial): "didSucceedReconnect(serialNumber: \(serial.debugDescription))"
        case .didFailReconnect(let serial): "didFailReconnect(serialNumber: \(serial.debugDescription))"
        case .didDisconnect(let serial, let reason): "didDisconnect(serialNumber: \(serial.debugDescription), reason: \(reason))"
        // The passkey is shown to the user to compare with the reader's: not a secret once shown.
        case .didRequestPairing(let serial, let passkey): "didRequestPairing(serialNumber: \(serial.debugDescription), passkey: \(passkey.debugDescription))"
        }
    }
}

extension Reader: CustomStringConvertible {
    public var description: String {
        var d = ProtobufDescription("Reader")
        d.string("id", id)
        d.string("serialNumber", serialNumber)
        d.string("label", label)
        d.value("deviceType", deviceType, isDefault: deviceType == .unknown)
        d.string("softwareVersion", softwareVersion)
        d.string("locationID", locationID)
        d.value("networkStatus", "\(networkStatus)", isDefault: networkStatus == .unknown)
        d.value("activity", "\(activity)", isDefault: activity == .unknown)
        d.string("ipAddress", ipAddress)
        if let batteryLevel { d.value("batteryLevel", batteryLevel, isDefault: false) }
        d.value("simulated", simulated, isDefault: !simulated)
        if let availableUpdate { d.value("availableUpdate", availableUpdate, isDefault: false) }
        return d.text
    }
}

extension ReaderSoftwareUpdate: CustomStringConvertible {
    public var description: String {
        var d = ProtobufDescription("ReaderSoftwareUpdate")
        d.value("deviceType", deviceType, isDefault: deviceType == .unknown)
        d.string("version", version)
        d.strings("components", components)
        d.value("estimatedUpdateTime", "\(estimatedUpdateTime)", isDefault: estimatedUpdateTime == .unknown)
        d.value("requiredAtUnixMs", requiredAtUnixMs, isDefault: requiredAtUnixMs == 0)
        d.value("isRequired", isRequired, isDefault: !isRequired)
        return d.text
    }
}
