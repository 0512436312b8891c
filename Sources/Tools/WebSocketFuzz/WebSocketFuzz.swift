// websocket-fuzz: libFuzzer target for the WebSocket upgrade parser and the frame
// decoder with the connection state machine around it.
//
// Fuzz build (`make fuzz`): compiled with -sanitize=fuzzer,address and
// -DWEBSOCKET_FUZZ; libFuzzer provides main and calls LLVMFuzzerTestOneInput.
// WEBSOCKET_FUZZ_TARGET=handshake|frames picks the parser.
//
// Plain build: `websocket-fuzz replay FILE...` runs inputs through the same code;
// `websocket-fuzz seeds DIR` writes the starting corpus (DIR/handshake, DIR/frames).
#if canImport(Glibc)
import Glibc
#endif
import FuzzSupport
import GatewayWebSocket

enum FuzzTarget {
    case handshake, frames

    static let current: FuzzTarget = {
        if let name = getenv("WEBSOCKET_FUZZ_TARGET"), String(cString: name) == "frames" { return .frames }
        return .handshake
    }()
}

/// The first byte picks the chunk size; the rest is fed in chunks of that size.
func chunks(_ input: UnsafeRawBufferPointer) -> [[UInt8]] {
    guard let first = input.first else { return [] }
    let size = Int(first) + 1
    let body = Array(input.dropFirst())
    return stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min(body.count, $0 + size)]) }
}

/// Handshake: whatever the pieces, exactly one verdict, a 101 only with a valid accept
/// value, and a refusal always with a complete response.
func fuzzHandshake(_ input: UnsafeRawBufferPointer) {
    let configuration = WebSocketHandshakeConfiguration(
        origins: .only(["https://pos.example"]), maxHeadBytes: 2048, maxHeaderCount: 32, plainGetPrefix: "/readergateway/v1/js/")
    var handshake = WebSocketHandshake(configuration: configuration)
    var verdicts = 0
    for chunk in chunks(input) {
        switch handshake.receive(chunk) {
        case .needMoreBytes:
            precondition(handshake.state == .reading)
        case .accept(let upgrade, let response, _):
            verdicts += 1
            precondition(upgrade.subprotocol == WebSocketBinding.subprotocol)
            precondition(String(decoding: response, as: UTF8.self).hasPrefix("HTTP/1.1 101 "))
            precondition(WebSocketHandshake.acceptValue(forKey: upgrade.key).utf8.count == 28)
        case .reject(let rejection, let response):
            verdicts += 1
            precondition([400, 403, 404, 405, 426, 431, 505].contains(rejection.status))
            precondition(String(decoding: response, as: UTF8.self).hasPrefix("HTTP/1.1 \(rejection.status) "))
        case .plainGet(let path):
            verdicts += 1
            precondition(path.hasPrefix("/readergateway/v1/js/") && !path.contains("/../"))
        case .ignored:
            precondition(handshake.state != .reading)
        }
    }
    precondition(verdicts <= 1)
}

/// Frames: the connection never delivers more than its limit, never writes after its
/// transport closes, and every frame it writes decodes as an unmasked server frame; the read
/// path that unmasks straight from the read (`receive(_:appendingMessagesTo:accept:)`) gives
/// the same messages and the same other actions.
func fuzzFrames(_ input: UnsafeRawBufferPointer) {
    let limit = 4096
    var connection = WebSocketConnection(configuration: .init(maxMessageSize: limit))
    var lean = WebSocketConnection(configuration: .init(maxMessageSize: limit))
    var written = WebSocketFrameDecoder(role: .client)
    var transportClosed = false
    var messages: [[UInt8]] = []
    var others: [WebSocketConnection.Action] = []
    var leanMessages: [[UInt8]] = []
    var leanOthers: [WebSocketConnection.Action] = []
    var appended: [UInt8] = []
    for chunk in chunks(input) {
        leanOthers += chunk.withUnsafeBytes { bytes in
            lean.receive(bytes, appendingMessagesTo: &appended) { message in
                leanMessages.append(Array(message))
                return true
            }
        }
        for action in connection.receive(chunk) {
            precondition(!transportClosed, "an action after closeTransport")
            if case .deliver(let message) = action { messages.append(message) } else { others.append(action) }
            switch action {
            case .deliver(let message):
                precondition(message.count <= limit)
            case .write(let bytes):
                written.append(bytes)
                do {
                    while let frame = try written.nextFrame(maxDataPayload: limit) {
                        precondition(frame.opcode == .pong || frame.opcode == .close)
                    }
                } catch {
                    preconditionFailure("the connection wrote a frame that does not decode: \(error)")
                }
            case .closeTransport:
                transportClosed = true
            case .pongReceived, .peerClosed:
                break
            }
        }
        precondition(transportClosed == (connection.state == .closed))
        precondition(lean.state == connection.state, "the read paths disagree on the state")
    }
    precondition(written.bufferedByteCount == 0)
    precondition(leanMessages == messages, "the read paths delivered different messages")
    precondition(leanOthers == others, "the read paths gave different actions")
    precondition(appended == Array(messages.joined()))
}

func runOne(_ input: UnsafeRawBufferPointer) {
    switch FuzzTarget.current {
    case .handshake: fuzzHandshake(input)
    case .frames: fuzzFrames(input)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    runOne(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if WEBSOCKET_FUZZ
// SwiftPM links an executable's entry point under the name `<product>_main`;
// it hands control to libFuzzer's driver (from libclang_rt.fuzzer).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("websocket_fuzz_main")
func webSocketFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput)
}
#else
@main
struct WebSocketFuzzReplay {
    static func main() {
        FuzzReplay.main(usage: "usage: websocket-fuzz replay FILE... | websocket-fuzz seeds DIR   (WEBSOCKET_FUZZ_TARGET=handshake|frames)", runOne: runOne, writeSeeds: { writeSeeds(to: $0) })
    }
}
#endif
