import Glibc

/// Two connected, non-blocking stream sockets as bare descriptors, for the tests that move a
/// descriptor number onto another socket (`dup2`) and so must close each number themselves.
func makeRawSocketPair() throws -> (watched: Int32, peer: Int32) {
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
        throw SocketPairError(errno: errno)
    }
    return (fds[0], fds[1])
}

/// Reads everything `fd` holds now (non-blocking); empty when nothing is there.
func readAvailable(_ fd: Int32) -> [UInt8] {
    var chunk = [UInt8](repeating: 0, count: 512)
    var read: [UInt8] = []
    while true {
        let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { return read }
        read += chunk[0..<count]
    }
}

/// Writes `bytes` to `fd` (a socket buffer takes a few bytes at once).
func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}
