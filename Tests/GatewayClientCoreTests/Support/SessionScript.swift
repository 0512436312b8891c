import GatewayWire

/// The gateway's answers for one lane's session: OpenSession (a resume keeps `reader`),
/// SubscribeEvents held open, Heartbeat, DiscoverReaders finding `reader` (or never answering
/// when `holdDiscovery`), ConnectReader granting it at generation 1, EasyConnect taking it from
/// another lane at generation 2 past a failed required update, SetReaderDisplay.
enum SessionScript {
    static let sessionToken = "st_core_1"
    static let leaseMs: Int64 = 30_000

    static var reader: ReaderGatewayV1.Reader {
        var reader = ReaderGatewayV1.Reader()
        reader.id = "tmr_core_1"
        reader.serialNumber = "WSC-CORE-1"
        reader.label = "Front counter"
        reader.locationID = "tml_core"
        return reader
    }

    /// `clearReaderDisplay` answers as if another lane had just taken the reader: the takeover
    /// event on the subscription, then `READER_CONNECTED_TO_ANOTHER_SESSION`.
    static func answers(holdDiscovery: Bool = false) -> ScriptedGateway.Script {
        { call in
            switch call.path {
            case ReaderGatewayV1.Sdk.openSession.path:
                let request = try? call.decode(ReaderGatewayV1.Sdk.openSession)
                var response = ReaderGatewayV1.OpenSessionResponse()
                response.sessionID = "sess_core_1"
                response.sessionToken = sessionToken
                response.leaseMs = leaseMs
                if request?.resumeToken == sessionToken {
                    response.resumed = true
                    response.connectedReader = reader
                }
                return .reply(response)
            case ReaderGatewayV1.Sdk.subscribeEvents.path:
                return .hold
            case ReaderGatewayV1.Sdk.heartbeat.path:
                return .reply(ReaderGatewayV1.HeartbeatResponse())
            case ReaderGatewayV1.Sdk.discoverReaders.path:
                if holdDiscovery { return .hold }
                var response = ReaderGatewayV1.DiscoverReadersResponse()
                response.discoveryID = "disc_core_1"
                response.readers = [reader]
                return .reply(response)
            case ReaderGatewayV1.Sdk.connectReader.path:
                var response = ReaderGatewayV1.ConnectReaderResponse()
                response.reader = reader
                response.generation = 1
                return .reply(response)
            case ReaderGatewayV1.Sdk.easyConnect.path:
                var connection = ReaderGatewayV1.ConnectReaderResponse()
                connection.reader = reader
                connection.generation = 2
                connection.replacedOtherSession = true
                connection.requiredUpdateFailure = ReaderGatewayV1.Status(.readerSoftwareUpdateFailed, "the required update failed halfway")
                var response = ReaderGatewayV1.EasyConnectResponse()
                response.discoveryID = "disc_core_2"
                response.connection = connection
                return .reply(response)
            case ReaderGatewayV1.Sdk.setReaderDisplay.path:
                return .reply(ReaderGatewayV1.SetReaderDisplayResponse())
            case ReaderGatewayV1.Sdk.clearReaderDisplay.path:
                return .failAfterEvent(takeover(by: "Lane 7"), ReaderGatewayV1.Status(.readerConnectedToAnotherSession, "Lane 7 took the reader"))
            default:
                return .fail(ReaderGatewayV1.Status(.methodNotFound, "the scripted gateway does not answer \(call.path)"))
            }
        }
    }

    /// The event the gateway sends a session whose reader another lane took.
    static func takeover(by laneLabel: String) -> ReaderGatewayV1.SessionEvent {
        var disconnected = ReaderGatewayV1.ReaderDisconnected()
        disconnected.readerID = reader.id
        disconnected.reason = .replaced
        disconnected.takenByLaneLabel = laneLabel
        disconnected.takenByPosDeviceID = "pos-9"
        disconnected.message = "another lane took the reader"
        disconnected.generation = 1
        var event = ReaderGatewayV1.SessionEvent()
        event.event = .disconnected(disconnected)
        return event
    }
}
