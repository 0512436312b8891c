import GatewayTestKit
import GatewayTransport
import Foundation

extension AsyncTLSConnection {
    /// Writes `bytes` and reads as many back from an echo server; nil if the stream ended first.
    /// Uses ``inbound``, which has one reader: call it once per connection.
    func roundTrip(_ bytes: [UInt8]) async throws -> [UInt8]? {
        write(bytes)
        var iterator = inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        return try await AsyncTLSConnection.read(exactly: bytes.count, from: &iterator, carry: &carry)
    }
}
