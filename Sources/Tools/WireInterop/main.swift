// wire-interop: the Swift side of the interop test against Python's official
// protobuf runtime (Tests/GatewayWireTests/Interop).
//
//   wire-interop decode    stdin: lines "<type> <hex>"; stdout: one JSON object per line,
//                          {"values": canonical JSON, "hex": re-encoded bytes} or {"error": "..."}
//   wire-interop corpus    stdout: messages built in Swift, {"type", "name", "hex", "values"}
//   wire-interop serve     stdin: one line, the hex of what a client sends; a server
//                          FrameConnection echoes each MESSAGE and ends each call with OK
//                          at HALF_CLOSE; stdout: {"events": [...], "hex": what it sent}
import GatewayWire
import GatewayWireConformance

let allTypes: [String: any ProtobufMessage.Type] = Dictionary(
    uniqueKeysWithValues: (ReaderGatewayV1.messageTypes + ReaderGatewayTestingV1.messageTypes).map { ($0.protoMessageName, $0) }
)

func bytes(fromHex hex: Substring) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(hex.count / 2)
    var iterator = hex.utf8.makeIterator()
    while let high = iterator.next() {
        guard let low = iterator.next(), let h = nibble(high), let l = nibble(low) else { return nil }
        out.append(h << 4 | l)
    }
    return out
}

func nibble(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    default: nil
    }
}

func decodeAndEncode<M: ProtobufMessage>(_ type: M.Type, _ input: [UInt8]) -> String {
    do {
        let message = try M(serializedBytes: input)
        return "{\"values\":\(CanonicalJSON.encode(message)),\"hex\":\"\(CanonicalJSON.hex(message.serializedBytes()))\"}"
    } catch {
        var out = ""
        CanonicalJSON.string("\(error)", to: &out)
        return "{\"error\":\(out)}"
    }
}

func runDecode() {
    while let line = readLine() {
        let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let type = allTypes[String(parts[0])], let input = bytes(fromHex: parts[1]) else {
            print("{\"error\":\"bad input line\"}")
            continue
        }
        print(decodeAndEncode(type, input))
    }
}

func runCorpus() {
    for (name, message) in SwiftCorpus.messages() {
        var typeName = ""
        CanonicalJSON.string(type(of: message).protoMessageName, to: &typeName)
        var nameJSON = ""
        CanonicalJSON.string(name, to: &nameJSON)
        print("{\"type\":\(typeName),\"name\":\(nameJSON),\"hex\":\"\(CanonicalJSON.hex(message.serializedBytes()))\",\"values\":\(CanonicalJSON.encode(message))}")
    }
}

func runServe() {
    guard let line = readLine(), let input = bytes(fromHex: Substring(line)) else {
        print("{\"error\":\"bad input\"}")
        return
    }
    let now = WireTime(nanoseconds: 1)
    var server = FrameConnection(configuration: ConnectionConfiguration(role: .server), now: now)
    var described: [String] = []
    var pending = server.receive(input, now: now)
    while !pending.isEmpty {
        let event = pending.removeFirst()
        switch event {
        case .callStarted(let id, let start, _):
            described.append("callStarted \(id) \(start.method) \(start.timeoutMs)")
        case .message(let id, let payload):
            described.append("message \(id) \(CanonicalJSON.hex(payload))")
            server.messageConsumed(id, byteCount: payload.count)
            _ = try? server.send(serialized: payload, on: id)
        case .halfClosed(let id):
            described.append("halfClosed \(id)")
            var trailer = ReaderGatewayV1.MetadataEntry()
            trailer.key = "x-echo"
            trailer.value = Array("done".utf8)
            pending += (try? server.endCall(id, status: .ok, trailers: [trailer])) ?? []
        case .closed(let status):
            described.append("closed \(status.reason)")
        default:
            described.append("\(event)")
        }
    }
    var events = "["
    for (index, text) in described.enumerated() {
        if index > 0 { events += "," }
        CanonicalJSON.string(text, to: &events)
    }
    events += "]"
    print("{\"events\":\(events),\"hex\":\"\(CanonicalJSON.hex(server.takeOutbound()))\"}")
}

switch CommandLine.arguments.dropFirst().first {
case "decode": runDecode()
case "corpus": runCorpus()
case "serve": runServe()
default:
    print("usage: wire-interop decode|corpus|serve")
}
