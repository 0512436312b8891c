import Foundation

/// Runs blocking `work` (a `poll`, a `read` until end of file) on a thread of its own named
/// `name` and returns its result, so that no thread of Swift's cooperative pool is held while
/// it blocks.
func onThreadOfItsOwn<T: Sendable>(_ name: String, _ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.name = name
        thread.start()
    }
}
