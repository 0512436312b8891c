import FuzzSupport
import GatewayWire
import GatewayWireConformance

/// Writes the starting corpus: `frame/` holds framed client conversations
/// (first byte: chunk size), `message/` holds serialized messages (first byte:
/// index of the type in `messageTypes`).
func writeSeeds(to directory: String) {
    // Frames.
    var pair = FrameConnectionPair()
    pair.exchange()
    var conversation: [UInt8] = [7] + FrameHeader.clientPreface
    var settings = ConnectionSettings().message
    settings.maxConcurrentStreams = 4
    FrameEncoder.append(.settings(settings), to: &conversation)
    var start = ReaderGatewayV1.CallStart()
    start.method = ReaderGatewayV1.Sdk.connectReader.path
    start.timeoutMs = 5000
    var entry = ReaderGatewayV1.MetadataEntry()
    entry.key = "authorization"
    entry.value = Array("Bearer sk_test".utf8)
    start.metadata = [entry]
    FrameEncoder.append(.callStart(streamID: 1, start), to: &conversation)
    var request = ReaderGatewayV1.ConnectReaderRequest()
    request.readerID = "tmr_1"
    request.failIfInUse = true
    FrameEncoder.append(.message(streamID: 1, request.serializedBytes()), to: &conversation)
    FrameEncoder.append(.halfClose(streamID: 1), to: &conversation)
    FrameEncoder.append(.ping(ack: false, payload: 42), to: &conversation)
    FrameEncoder.append(.windowUpdate(streamID: 0, increment: 1000), to: &conversation)
    FrameEncoder.append(.callStart(streamID: 3, start), to: &conversation)
    FrameEncoder.append(.cancel(streamID: 3, ReaderGatewayV1.Status(.cancelledByPeer, "bye")), to: &conversation)
    var goAway = ReaderGatewayV1.GoAway()
    goAway.lastStreamID = 3
    FrameEncoder.append(.goAway(goAway), to: &conversation)
    FuzzReplay.writeInput("\(directory)/frame/conversation", conversation)

    var serverSide: [UInt8] = [0]
    FrameEncoder.append(.settings(ConnectionSettings().message), to: &serverSide)
    FrameEncoder.append(.endOfCall(streamID: 1, ReaderGatewayV1.CallEnd(ReaderGatewayV1.Status(.readerBusy, "busy"))), to: &serverSide)
    FrameEncoder.append(.ping(ack: true, payload: 1), to: &serverSide)
    FuzzReplay.writeInput("\(directory)/frame/server-side", serverSide)
    FuzzReplay.writeInput("\(directory)/frame/truncated-header", [3, 0, 0, 0, 9, 2])

    // Messages: one per product surface message type with fields set, plus AllTypes.
    var index = 0
    func seed<M: ProtobufMessage>(_ name: String, _ message: M) {
        guard let position = messageTypes.firstIndex(where: { $0 == M.self }) else { return }
        FuzzReplay.writeInput("\(directory)/message/\(name)", [UInt8(position)] + message.serializedBytes())
        index += 1
    }
    seed("connect-reader", request)
    seed("call-start", start)
    var command = ReaderGatewayV1.ReaderCommand()
    command.commandID = 99
    var collect = ReaderGatewayV1.CollectPaymentMethodParams()
    collect.paymentIntentID = "pi_1"
    collect.amount = 1999
    collect.currency = "usd"
    command.command = .collectPaymentMethod(collect)
    seed("reader-command", command)
    var event = ReaderGatewayV1.SessionEvent()
    var disconnected = ReaderGatewayV1.ReaderDisconnected()
    disconnected.reason = .replaced
    disconnected.takenByLaneLabel = "Lane 2"
    event.event = .disconnected(disconnected)
    seed("session-event", event)
    var all = ReaderGatewayTestingV1.AllTypes()
    all.int32Value = -1
    all.sint64Value = -5
    all.repeatedFixed32 = [1, 2]
    all.repeatedString = ["a"]
    all.child = ReaderGatewayTestingV1.AllTypes()
    all.choice = .choiceString("x")
    all.optionalColor = .red
    all.unknownFields = [0xF8, 0x07, 0x01]
    seed("all-types", all)
    var list = ReaderGatewayV1.ListReaderOwnershipResponse()
    var ownership = ReaderGatewayV1.ReaderOwnership()
    ownership.readerID = "tmr_1"
    ownership.owner = ReaderGatewayV1.ReaderOwner()
    ownership.generation = 7
    list.ownerships = [ownership, ownership]
    seed("ownership-list", list)
}
