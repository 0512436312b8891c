// wire-fuzz: libFuzzer target for the frame decoder, the connection state
// machine and every message decoder.
//
// Fuzz build (`make fuzz`): compiled with -sanitize=fuzzer,address and
// -DWIRE_FUZZ; libFuzzer provides main and calls LLVMFuzzerTestOneInput.
// WIRE_FUZZ_TARGET=frame|message picks the decoder.
//
// Plain build: `wire-fuzz replay FILE...` runs inputs through the same code
// (reproduces a crash without the fuzzer); `wire-fuzz seeds DIR` writes the
// starting corpus.
#if canImport(Glibc)
import Glibc
#endif
import FuzzSupport
import GatewayWire
import GatewayWireConformance

enum FuzzTarget {
    case frame, message

    static let current: FuzzTarget = {
        if let name = getenv("WIRE_FUZZ_TARGET"), String(cString: name) == "message" { return .message }
        return .frame
    }()
}

let messageTypes: [any ProtobufMessage.Type] = ReaderGatewayV1.messageTypes + ReaderGatewayTestingV1.messageTypes

/// Frames: the decoder alone, then a server and a client connection, with the
/// input cut into chunks whose sizes the first byte chooses.
func fuzzFrames(_ input: UnsafeRawBufferPointer) {
    guard let first = input.first else { return }
    let chunk = Int(first) + 1
    let body = UnsafeRawBufferPointer(rebasing: input.dropFirst())

    var decoder = FrameDecoder(maxFrameSize: 1 << 16, maxHeaderSize: 4096)
    var offset = 0
    outer: while offset < body.count {
        let end = min(body.count, offset + chunk)
        decoder.append(UnsafeRawBufferPointer(rebasing: body[offset..<end]))
        offset = end
        while true {
            do {
                guard let frame = try decoder.nextFrame() else { break }
                // Invariant: a decoded frame re-encodes to bytes that decode to the same frame.
                var again = FrameDecoder(maxFrameSize: 1 << 16, maxHeaderSize: 4096)
                let bytes = FrameEncoder.encode(frame)
                again.append(bytes)
                let reencoded = FrameEncoder.encode(try! again.nextFrame()!)
                precondition(reencoded == bytes, "frame round trip changed \(frame)")
            } catch {
                break outer
            }
        }
    }
    precondition(decoder.bufferedByteCount <= body.count)

    for role in [ConnectionConfiguration.Role.server, .client] {
        var settings = ConnectionSettings(maxFrameSize: 1 << 16, maxConcurrentStreams: 8, initialStreamWindow: 1024, initialConnectionWindow: 4096)
        settings.maxHeaderSize = 4096
        let configuration = ConnectionConfiguration(
            role: role,
            localSettings: settings,
            keepalive: .init(interval: .seconds(1), timeout: .seconds(1)),
            maxIdleTime: .seconds(5),
            maxAge: .seconds(10),
            maxAgeGrace: .seconds(1),
            maxQueuedBytesPerStream: 8192
        )
        var now = WireTime(nanoseconds: 1)
        var connection = FrameConnection(configuration: configuration, now: now)
        if role == .server {
            _ = connection.receive(FrameHeader.clientPreface, now: now)
        }
        var start = 0
        while start < body.count && connection.state != .closed {
            let end = min(body.count, start + chunk)
            let events = connection.receive(UnsafeRawBufferPointer(rebasing: body[start..<end]), now: now)
            start = end
            for event in events {
                switch event {
                case .callStarted(let id, _, _):
                    _ = try? connection.send(serialized: [UInt8](repeating: 1, count: 700), on: id)
                case .message(let id, let payload):
                    connection.messageConsumed(id, byteCount: payload.count)
                case .halfClosed(let id):
                    _ = try? connection.endCall(id, status: .ok)
                default:
                    break
                }
            }
            now = now.adding(.milliseconds(Int64(first) * 10))
            _ = connection.tick(now: now)
            _ = connection.takeOutbound()
        }
    }
}

/// Messages: the first byte picks the type; a decoded message must re-encode
/// to bytes that decode and re-encode to the same bytes.
func fuzzMessages(_ input: UnsafeRawBufferPointer) {
    guard let first = input.first else { return }
    let type = messageTypes[Int(first) % messageTypes.count]
    roundTrip(type, UnsafeRawBufferPointer(rebasing: input.dropFirst()))
}

func roundTrip<Message: ProtobufMessage>(_ type: Message.Type, _ bytes: UnsafeRawBufferPointer) {
    guard let message = try? Message(serializedBytes: bytes, options: .init(maxDepth: 32)) else { return }
    let encoded = message.serializedBytes()
    let again: Message
    do {
        again = try Message(serializedBytes: encoded, options: .init(maxDepth: 64))
    } catch {
        preconditionFailure("\(Message.protoMessageName): re-encoded bytes do not decode: \(error)")
    }
    precondition(again.serializedBytes() == encoded, "\(Message.protoMessageName): encoding is not stable")
}

func runOne(_ input: UnsafeRawBufferPointer) {
    switch FuzzTarget.current {
    case .frame: fuzzFrames(input)
    case .message: fuzzMessages(input)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    runOne(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if WIRE_FUZZ
// SwiftPM links an executable's entry point under the name `<product>_main`;
// it hands control to libFuzzer's driver (from libclang_rt.fuzzer).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("wire_fuzz_main")
func wireFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput)
}
#else
@main
struct WireFuzzReplay {
    static func main() {
        FuzzReplay.main(usage: "usage: wire-fuzz replay FILE... | wire-fuzz seeds DIR   (WIRE_FUZZ_TARGET=frame|message)", runOne: runOne, writeSeeds: { writeSeeds(to: $0) })
    }
}
#endif
