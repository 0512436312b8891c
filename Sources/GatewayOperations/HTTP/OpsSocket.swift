#if canImport(Glibc)
import Glibc
#endif
import CGatewayLinux

/// The few socket calls the ops endpoint makes, over Glibc.
enum OpsSocket {
    /// Creates a non-blocking listening socket bound to `host:port`.
    static func listen(host: String, port: Int) throws(OpsServerError) -> (fd: Int32, port: Int) {
        guard (0...65535).contains(port) else {
            throw OpsServerError(.invalidAddress, "port \(port) is out of range: use 0…65535")
        }
        var storage = sockaddr_storage()
        var length: socklen_t
        let family: Int32
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            family = AF_INET
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                address.pointee.sin_family = sa_family_t(AF_INET)
                address.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
                address.pointee.sin_addr = ipv4
            }
        } else if inet_pton(AF_INET6, host, &ipv6) == 1 {
            family = AF_INET6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                address.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
                address.pointee.sin6_addr = ipv6
            }
        } else {
            throw OpsServerError(.invalidAddress, "\(host.debugDescription) is not an IPv4 or IPv6 address: give a literal such as 0.0.0.0 or ::1")
        }

        let fd = rg_socket_nonblocking(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw OpsServerError(.socketFailed, "cannot create a socket", systemError: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw OpsServerError(.bindFailed, "cannot bind \(host) port \(port): is another process using it? Choose another --ops-port", systemError: code)
        }
        guard Glibc.listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw OpsServerError(.bindFailed, "cannot listen on \(host) port \(port)", systemError: code)
        }
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let boundPort = withUnsafeBytes(of: &storage) { raw -> UInt16 in
            if family == AF_INET {
                return UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
            }
            return UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
        }
        return (fd, Int(boundPort))
    }

    static func close(_ fd: Int32) { _ = Glibc.close(fd) }
}
