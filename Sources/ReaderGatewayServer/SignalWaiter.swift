import CGatewayLinux
import Foundation

/// SIGINT and SIGTERM as an async sequence.
///
/// A handler writes each signal's number to a pipe that a thread of its own reads, so no
/// thread needs the signals blocked (the main thread's mask does not survive the runtime's
/// main loop). Children start with default handlers: `exec` resets handled signals.
final class SignalWaiter: Sendable {
    /// Each signal, in the order they arrived.
    let signals: AsyncStream<Int32>

    private init(signals: AsyncStream<Int32>) { self.signals = signals }

    static func install() -> SignalWaiter? {
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

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }
}
