import GatewayRPC
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
        d.message("connectedReader", connectedReader)
        return d.text
    }
}

extension DiscoveredReader: CustomStringConvertible {
    public var description: String {
        var d = ProtobufDescription("DiscoveredReader")
        d.string("discoveryID", discoveryID)
        d.message("reader", reader)
        return d.text
    }
}

extension DisconnectInfo: CustomStringConvertible {
    public var description: String {
        var d = ProtobufDescription("DisconnectInfo")
        d.string("readerID", readerID)
        d.value("reason", reason, isDefault: false)
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

extension AdminClient: CustomStringConvertible {
    /// The call deadline; never the secret key.
    public var description: String { "AdminClient(secretKey: \(ProtobufDescription.redacted), timeout: \(timeout))" }
}
