import GatewayWire
import GatewayWireConformance

/// Messages built in Swift for the Swift-to-Python direction: defaults,
/// negatives, extremes, nesting, oneofs, optionals, unknown fields and every
/// surface's typical messages.
enum SwiftCorpus {
    typealias AllTypes = ReaderGatewayTestingV1.AllTypes

    static func messages() -> [(String, any ProtobufMessage)] {
        var out: [(String, any ProtobufMessage)] = []
        out.append(("empty", AllTypes()))

        var extremes = AllTypes()
        extremes.int32Value = .min
        extremes.int64Value = .min
        extremes.uint32Value = .max
        extremes.uint64Value = .max
        extremes.sint32Value = .min
        extremes.sint64Value = .min
        extremes.fixed32Value = .max
        extremes.fixed64Value = .max
        extremes.sfixed32Value = .min
        extremes.sfixed64Value = .min
        extremes.floatValue = .greatestFiniteMagnitude
        extremes.doubleValue = -.leastNonzeroMagnitude
        extremes.boolValue = true
        extremes.stringValue = "caf\u{E9} \u{1F4B3} \u{0} \"quoted\"\n"
        extremes.bytesValue = Array(0...255)
        extremes.color = .negative
        out.append(("extremes", extremes))

        var negatives = AllTypes()
        negatives.int32Value = -1
        negatives.int64Value = -2
        negatives.sint32Value = -3
        negatives.sint64Value = -4_000_000_000_000
        negatives.sfixed32Value = -5
        negatives.sfixed64Value = -6
        negatives.floatValue = -0.0
        negatives.doubleValue = -1.5
        negatives.repeatedInt32 = [-1, 0, 1, .min, .max]
        negatives.repeatedSint64 = [-1, 1, .min, .max]
        negatives.color = AllTypes.Color(rawValue: 77)
        out.append(("negatives and an unknown enum value", negatives))

        var repeated = AllTypes()
        repeated.repeatedInt64 = [0, 1, 300, 1 << 40, -1]
        repeated.repeatedUint32 = [0, 127, 128, 16_383, 16_384, .max]
        repeated.repeatedUint64 = [0, 1 << 63, .max]
        repeated.repeatedSint32 = [0, -1, 1, -64, 64]
        repeated.repeatedFixed32 = [1, 2, .max]
        repeated.repeatedFixed64 = [3, .max]
        repeated.repeatedSfixed32 = [-1, .min]
        repeated.repeatedSfixed64 = [-1, .max]
        repeated.repeatedFloat = [1.5, -2.25, .infinity]
        repeated.repeatedDouble = [0.1, -.infinity, 1e300]
        repeated.repeatedBool = [true, false, true]
        repeated.repeatedString = ["", "a", "\u{1F600}"]
        repeated.repeatedBytes = [[], [0], [0xFF, 0xFE]]
        repeated.repeatedColor = [.red, .green, .negative, .unspecified]
        repeated.unpackedInt32 = [1, -1, 150]
        out.append(("repeated packed and unpacked", repeated))

        var nested = AllTypes()
        nested.child = AllTypes()
        var leaf = AllTypes()
        leaf.stringValue = "leaf"
        var chain = leaf
        for depth in 0..<20 {
            var parent = AllTypes()
            parent.int32Value = Int32(depth)
            parent.child = chain
            chain = parent
        }
        nested.repeatedChild = [AllTypes(), chain, leaf]
        var reader = ReaderGatewayV1.Reader()
        reader.id = "tmr_1"
        reader.batteryLevel = 0
        nested.reader = reader
        out.append(("empty and deeply nested messages", nested))

        var optionals = AllTypes()
        optionals.optionalInt32 = 0
        optionals.optionalString = ""
        optionals.optionalColor = .unspecified
        optionals.choice = .choiceUint32(0)
        out.append(("optionals and oneof set to defaults", optionals))

        var oneofChild = AllTypes()
        oneofChild.choice = .choiceChild(leaf)
        out.append(("oneof message", oneofChild))
        var oneofBytes = AllTypes()
        oneofBytes.choice = .choiceBytes([])
        out.append(("oneof empty bytes", oneofBytes))

        var withUnknown = ReaderGatewayTestingV1.Subset()
        withUnknown.int32Value = 7
        withUnknown.unknownFields = [0x10, 0x96, 0x01, 0xA2, 0x06, 0x02, 0x68, 0x69]  // field 2 = 150, field 100 = "hi"
        out.append(("unknown fields written back", withUnknown))

        out += productMessages()
        return out
    }

    static func productMessages() -> [(String, any ProtobufMessage)] {
        var out: [(String, any ProtobufMessage)] = []
        var connect = ReaderGatewayV1.ConnectReaderRequest()
        connect.sessionToken = "sess_tok_0123456789abcdef"
        connect.readerID = "tmr_FDOt2wlRZEdpd7"
        connect.discoveryID = "disc_42"
        connect.failIfInUse = true
        connect.posDeviceID = "pos-7"
        connect.laneLabel = "Lane 7"
        out.append(("ConnectReaderRequest", connect))

        var command = ReaderGatewayV1.ReaderCommand()
        command.commandID = 1 << 40
        command.timeoutMs = 60_000
        var collect = ReaderGatewayV1.CollectPaymentMethodParams()
        collect.paymentIntentID = "pi_3MtwBwLkdIwHu7ix28a3tqPa"
        collect.amount = 1999
        collect.currency = "usd"
        command.command = .collectPaymentMethod(collect)
        out.append(("ReaderCommand collect", command))

        var reboot = ReaderGatewayV1.ReaderCommand()
        reboot.command = .reboot(.init())
        out.append(("ReaderCommand empty oneof message", reboot))

        var event = ReaderGatewayV1.SessionEvent()
        event.sequence = 3
        event.atUnixMs = 1_700_000_000_000
        var disconnected = ReaderGatewayV1.ReaderDisconnected()
        disconnected.readerID = "tmr_1"
        disconnected.reason = .replaced
        disconnected.takenByLaneLabel = "Lane 2"
        event.event = .disconnected(disconnected)
        out.append(("SessionEvent disconnected", event))

        var ownership = ReaderGatewayV1.ReaderOwnership()
        ownership.readerID = "tmr_1"
        var owner = ReaderGatewayV1.ReaderOwner()
        owner.sessionID = "sess_1"
        owner.laneLabel = "Lane 1"
        ownership.owner = owner
        ownership.generation = .max
        ownership.inTransaction = true
        ownership.sinceUnixMs = -1
        out.append(("ReaderOwnership", ownership))

        var end = ReaderGatewayV1.CallEnd(ReaderGatewayV1.Status(.readerBusy, "reader busy"))
        var trailer = ReaderGatewayV1.MetadataEntry()
        trailer.key = "x-trace-bin"
        trailer.value = [0, 1, 2]
        end.trailers = [trailer]
        out.append(("CallEnd", end))
        return out
    }
}
