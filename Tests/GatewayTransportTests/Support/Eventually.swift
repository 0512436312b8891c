import GatewayTransport
import Foundation

/// Polls `condition` every few milliseconds until it holds or `timeout` passes (bounded in count).
func eventually(timeout: Duration = .seconds(5), interval: Duration = .milliseconds(2), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    for _ in 0..<100_000 {
        if condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
    return condition()
}

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
