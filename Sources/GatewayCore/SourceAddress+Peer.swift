#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SourceAddress {
    /// The source of a peer as the call layer names it (`host:port`, `[host]:port` for IPv6,
    /// or a bare address); nil when `peer` holds no numeric address (an in-memory transport's name).
    public init?(peer: String) {
        var host = Substring(peer)
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = host[host.index(after: host.startIndex)..<close]
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        var storage = sockaddr_storage()
        let parsed = withUnsafeMutableBytes(of: &storage) { raw -> Bool in
            let text = String(host)
            if inet_pton(AF_INET, text, raw.baseAddress! + MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!) == 1 {
                raw.storeBytes(of: sa_family_t(AF_INET), toByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_family)!, as: sa_family_t.self)
                return true
            }
            if inet_pton(AF_INET6, text, raw.baseAddress! + MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!) == 1 {
                raw.storeBytes(of: sa_family_t(AF_INET6), toByteOffset: MemoryLayout<sockaddr_in6>.offset(of: \.sin6_family)!, as: sa_family_t.self)
                return true
            }
            return false
        }
        guard parsed else { return nil }
        self.init(storage)
    }
}
