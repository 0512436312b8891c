import GatewayRPC
import GatewayTransport
import GatewayWire
import Synchronization

/// A reconnecting handle on the gateway: one ``ClientChannel`` at a time, replaced when it
/// closes or drains after GOAWAY.
///
/// Share one `GatewayConnection` between many ``TerminalClient``s to multiplex a store's
/// lanes over one TLS connection, or give each lane its own.
public final class GatewayConnection: Sendable {
    /// Where it connects.
    public let configuration: ClientChannelConfiguration
    let group: EventLoopGroup?
    private let current = Mutex<ClientChannel?>(nil)
    private let connectLock = AsyncLock()

    public init(_ configuration: ClientChannelConfiguration, group: EventLoopGroup? = nil) {
        self.configuration = configuration
        self.group = group
    }

    /// Wraps an open channel; a replacement is connected with the same configuration.
    public init(channel: ClientChannel, group: EventLoopGroup? = nil) {
        self.configuration = channel.configuration
        self.group = group
        current.withLock { $0 = channel }
    }

    /// The current channel, connecting a new one if there is none or it stopped taking calls.
    public func channel() async throws -> ClientChannel {
        if let channel = current.withLock({ $0 }), channel.state.acceptsCalls { return channel }
        return try await connectLock.withLock {
            if let channel = current.withLock({ $0 }), channel.state.acceptsCalls { return channel }
            let fresh = try await ClientChannel.connect(configuration, group: group)
            // The channel replaced is closed or draining: a draining channel finishes its
            // calls and then closes by itself, so it is never closed here (that would fail
            // its calls still in flight with a cancellation instead of their own outcome).
            current.withLock { $0 = fresh }
            return fresh
        }
    }

    /// The channel in use now, if any (no connecting).
    public var currentChannel: ClientChannel? { current.withLock { $0 } }

    /// Closes the current channel.
    public func close() {
        let channel = current.withLock { slot -> ClientChannel? in
            let taken = slot
            slot = nil
            return taken
        }
        channel?.close()
    }

    /// Calls a unary method, retrying on a fresh channel when the call certainly was not
    /// processed (``RPCError/isRetryable``) or, for an `idempotent` method, on any UNAVAILABLE.
    ///
    /// - Parameter attempts: how many tries at most (backoff 100 ms, 200 ms, 400 ms, ...).
    public func unary<Request, Response>(
        _ method: ProtobufMethod<Request, Response>,
        _ request: Request,
        metadata: [ReaderGatewayV1.MetadataEntry] = [],
        timeout: Duration? = nil,
        idempotent: Bool = false,
        attempts: Int = 3
    ) async throws -> Response {
        var backoff = Duration.milliseconds(100)
        var attempt = 1
        while true {
            do {
                let channel = try await channel()
                return try await channel.unary(method, request, metadata: metadata, timeout: timeout)
            } catch let error as RPCError {
                let retry = error.isRetryable || (idempotent && error.isRetryableForIdempotentCall)
                guard retry, attempt < attempts, !Task.isCancelled else { throw error }
            }
            try? await Task.sleep(for: backoff)
            backoff *= 2
            attempt += 1
        }
    }
}

/// A lock held across suspension points, for one-at-a-time reconnects.
final class AsyncLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }

    private func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state -> Bool in
                if state.locked {
                    state.waiters.append(continuation)
                    return false
                }
                state.locked = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    private func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
