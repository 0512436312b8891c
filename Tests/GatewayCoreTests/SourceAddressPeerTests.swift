import GatewayCore
import Testing

/// The source address of a peer as the call layer names it.
@Suite("Source address of a peer")
struct SourceAddressPeerTests {
    @Test func ipv4AndIPv6PeersParseAndIPv6CountsAsItsSlash64() {
        #expect(SourceAddress(peer: "127.0.0.2:51234")?.description == "127.0.0.2")
        #expect(SourceAddress(peer: "127.0.0.2")?.description == "127.0.0.2")
        #expect(SourceAddress(peer: "[2001:db8:1:2:3:4:5:6]:443")?.description == "2001:db8:1:2::/64")
        #expect(SourceAddress(peer: "[2001:db8:1:2:ffff::1]:443") == SourceAddress(peer: "[2001:db8:1:2::9]:1"))
        #expect(SourceAddress(peer: "[::ffff:192.0.2.1]:80")?.description == "192.0.2.1")
        #expect(SourceAddress(peer: "in-memory:7") == nil)
        #expect(SourceAddress(peer: "") == nil)
    }
}
