import Foundation
import Synchronization

/// A hard bound on a cluster test, on a thread of its own (so it fires even when every task
/// of the test is stuck): past the limit it prints the cluster's logs, kills its processes
/// and ends the test process with status 1, so that `make test` fails instead of hanging.
final class Watchdog: Sendable {
    let limit: Duration
    private let done = DispatchSemaphore(value: 0)
    private let armed = Mutex<Bool>(false)

    init(limit: Duration) { self.limit = limit }

    func arm(_ cluster: ClusterFixture) {
        armed.withLock { $0 = true }
        let (limit, done) = (limit, done)
        let thread = Thread { [self] in
            let (whole, fraction) = limit.components
            let nanoseconds = UInt64(whole) * 1_000_000_000 + UInt64(fraction / 1_000_000_000)
            guard done.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .timedOut, armed.withLock({ $0 }) else { return }
            print("cluster: WATCHDOG: the test did not finish within \(seconds(limit)); printing the logs, killing the cluster and ending the test process")
            cluster.printLogs()
            for pid in cluster.pids { kill(pid, SIGKILL) }
            fflush(nil)
            exit(1)
        }
        thread.name = "cluster-watchdog"
        thread.start()
    }

    func disarm() {
        armed.withLock { $0 = false }
        done.signal()
    }
}
