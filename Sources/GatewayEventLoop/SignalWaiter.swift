import CGatewayLinux
import Foundation

/// SIGINT and SIGTERM as an async sequence, for `reader-gateway` and `reader-sim`.
///
/// The handlers are in place when ``install()`` returns, so a signal sent after that is never
/// lost (a `DispatchSource`'s signal is registered by libdispatch's manager thread after
/// `resume()` returns; `reader-sim` used them, and a SIGTERM sent right after its `started`
/// line was lost now and then under load). A handler writes each signal's number to a pipe
/// that a thread of its own reads, so no thread needs the signals blocked (the main thread's
/// mask does not survive the runtime's main loop). Children start with default handlers:
/// `exec` resets handled signals.
public final class SignalWaiter: Sendable {
    /// Each signal, in the order they arrived.
    public let signals: AsyncStream<Int32>

    private init(signals: AsyncStream<Int32>) { self.signals = signals }

    /// Installs the handlers; nil when the pipe could not be made.
    public static func install() -> SignalWaiter? {
        let numbers: [Int32] = [SIGINT, SIGTERM]
        let descriptor = numbers.withUnsafeBufferPointer { rg_signal_pipe($0.baseAddress, Int32($0.count)) }
        guard descriptor >= 0 else { return nil }
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let reader = Thread {
            while true {
                let signal = rg_signal_pipe_read(descriptor)
                guard signal > 0 else { break }
                continuation.yield(signal)
            }
            continuation.finish()
        }
        reader.name = "signals"
        reader.start()
        return SignalWaiter(signals: signals)
    }

    public static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }
}
