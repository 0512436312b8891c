// websocket-echo: the WebSocket binding over a real TCP socket, for interop tests with
// independent WebSocket clients (Tests/GatewayWebSocketTests/Interop). Plain TCP (no TLS),
// one connection at a time, blocking: a test fixture, not a server.
//
// Each protocol frame a client sends comes back as it was (WebSocketServerSession does
// everything else: the upgrade, masking, fragments, pings, close codes).
//
//   websocket-echo [--origin https://pos.example]...   prints "port N", then serves
#if canImport(Glibc)
import Glibc
#endif
import GatewayWebSocket

var origins: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--origin", let origin = arguments.popFirst() { origins.append(origin) }
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

func serve(_ descriptor: Int32, origins: [String]) {
    var session = WebSocketServerSession(
        handshake: WebSocketHandshakeConfiguration(origins: .only(origins)),
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
            case .upgraded, .rejected, .peerClosed:
                break
            }
        }
    }
}

while true {
    let connection = accept(listener, nil, nil)
    if connection < 0 { continue }
    serve(connection, origins: origins)
    shutdown(connection, Int32(SHUT_RDWR))
    close(connection)
}
