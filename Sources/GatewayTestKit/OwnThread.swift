import Foundation

/// Runs blocking work — a blocking socket call, a blocking TLS client, `waitpid` — on a thread
/// of its own and awaits its result.
///
/// Swift's cooperative pool has one thread per core (two here). A test that blocks one of them
/// starves every other test's tasks, and the server-side tasks a test waits for, for as long as
/// the call blocks: the cause of timeouts that only show up when the whole suite runs at once.
/// Blocking work in tests goes through this function instead.
public func onOwnThread<T: Sendable>(
    _ name: String = "test-blocking", _ work: @escaping @Sendable () throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            do {
                continuation.resume(returning: try work())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.name = name
        thread.start()
    }
}

/// ``onOwnThread(_:_:)`` for work that cannot throw.
public func onOwnThread<T: Sendable>(_ name: String = "test-blocking", _ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.name = name
        thread.start()
    }
}
