// websocket-echo: the WebSocket binding over a real TCP socket, for interop tests with
// independent WebSocket clients (Tests/GatewayWebSocketTests/Interop). Plain TCP (no TLS),
// one connection at a time, blocking: a test fixture, not a server.
//
// Each protocol frame a client sends comes back as it was (WebSocketServerSession does
// everything else: the upgrade, masking, fragments, pings, close codes).
//
// With --assets DIR, a GET of /readergateway/v1/js/<file> answers DIR/<file> (404 when
// there is none), as the gateway serves the browser library.
//
//   websocket-echo [--origin https://pos.example]... [--assets DIR]   prints "port N", then serves
#if canImport(Glibc)
import Glibc
#endif
import GatewayWebSocket

let assetPrefix = "/readergateway/v1/js/"
var origins: [String] = []
var assets: String? = nil
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--origin", let origin = arguments.popFirst() { origins.append(origin) }
    if argument == "--assets", let directory = arguments.popFirst() { assets = directory }
}

/// The file's bytes, or nil when it cannot be read.
func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        out.append(contentsOf: chunk[0..<count])
    }
    return out
}

let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
precondition(listener >= 0, "socket failed")
var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_addr.s_addr = inet_addr("127.0.0.1")
address.sin_port = 0
let bound = withUnsafePointer(to: &address) { pointer in
    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
}
precondition(bound == 0 && listen(listener, 16) == 0, "bind or listen failed")
var length = socklen_t(MemoryLayout<sockaddr_in>.size)
_ = withUnsafeMutablePointer(to: &address) { pointer in
    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
}
print("port \(UInt16(bigEndian: address.sin_port))")
fflush(nil)  // every stream: the test reads the port before anything else

func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if written <= 0 { return false }
        offset += written
    }
    return true
}

func serve(_ descriptor: Int32, origins: [String], assets: String?) {
    var session = WebSocketServerSession(
        handshake: WebSocketHandshakeConfiguration(origins: .only(origins), plainGetPrefix: assets == nil ? nil : assetPrefix),
        connection: .init(maxMessageSize: 65536 + WebSocketBinding.frameHeaderSize)
    )
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count <= 0 { return }
        var pending = session.receive(buffer[0..<count])
        while !pending.isEmpty {
            let action = pending.removeFirst()
            switch action {
            case .write(let bytes):
                if !writeAll(descriptor, bytes) { return }
            case .protocolFrame(let frame):
                pending.insert(contentsOf: session.sendProtocolBytes(frame), at: 0)
            case .closeTransport:
                return
            case .plainGet(let path):
                let name = String(path.dropFirst(assetPrefix.count))
                if let assets, let body = readFile("\(assets)/\(name)") {
                    _ = writeAll(descriptor, WebSocketHandshake.plainResponse(status: 200, contentType: "text/javascript; charset=utf-8", body: body))
                } else {
                    _ = writeAll(descriptor, WebSocketHandshake.plainResponse(status: 404, body: Array("no file \(path)\n".utf8)))
                }
                return
            case .upgraded, .rejected, .peerClosed:
                break
            }
        }
    }
}

while true {
    let connection = accept(listener, nil, nil)
    if connection < 0 { continue }
    serve(connection, origins: origins, assets: assets)
    shutdown(connection, Int32(SHUT_RDWR))
    close(connection)
}
