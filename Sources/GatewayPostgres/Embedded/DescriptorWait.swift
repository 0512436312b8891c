import CGatewayLinux
import Foundation

/// Waiting for the kernel to say something happened — a directory changed (inotify), a process
/// exited (pidfd, a reaper's eventfd) — instead of checking again every few milliseconds.
///
/// The wait blocks in `poll(2)` on a thread of its own, so no thread of Swift's cooperative
/// pool is held; it ends at the first readable descriptor or at the deadline.
enum DescriptorWait {
    /// The index in `descriptors` of the first one that became readable, or nil when
    /// `deadline` passed first (or `poll` failed: the caller checks its condition and its
    /// deadline again either way). `descriptors` holds one to eight descriptors.
    static func firstReadable(_ descriptors: [Int32], until deadline: ContinuousClock.Instant) async -> Int? {
        precondition((1...8).contains(descriptors.count), "DescriptorWait waits on one to eight descriptors")
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return nil }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
        return await onThreadOfItsOwn("wait-readable") {
            let ready = descriptors.withUnsafeBufferPointer { rg_wait_readable($0.baseAddress, Int32($0.count), milliseconds) }
            return ready >= 0 ? Int(ready) : nil
        }
    }
}

/// An inotify descriptor watching directories for entries created, written or renamed in.
/// Closes it when dropped.
final class DirectoryChanges: Sendable {
    let descriptor: Int32

    /// Watches `directories`; nil when inotify is unavailable (the caller then relies on its
    /// other events and its deadline).
    init?(_ directories: [String]) {
        let descriptor = rg_inotify_init()
        guard descriptor >= 0 else { return nil }
        for directory in directories where rg_inotify_watch_directory(descriptor, directory) < 0 {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Forgets the changes seen so far (the next wait then waits for a new one).
    func drain() { _ = rg_inotify_drain(descriptor) }
}
