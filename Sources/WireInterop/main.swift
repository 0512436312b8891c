// wire-interop: the Swift side of the interop test against Python's official
// protobuf runtime (Tests/GatewayWireTests/Interop).
//
//   wire-interop decode    stdin: lines "<type> <hex>"; stdout: one JSON object per line,
//                          {"values": canonical JSON, "hex": re-encoded bytes} or {"error": "..."}
//   wire-interop corpus    stdout: messages built in Swift, {"type", "name", "hex", "values"}
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

switch CommandLine.arguments.dropFirst().first {
case "decode": runDecode()
case "corpus": runCorpus()
default:
    print("usage: wire-interop decode|corpus")
}
