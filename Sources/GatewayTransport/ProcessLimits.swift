import CGatewayLinux
import Glibc

/// Process-wide settings a network server needs once at start-up.
public enum ProcessLimits {
    /// Ignores SIGPIPE (writes to a closed socket then fail with EPIPE instead of killing the process)
    /// and raises the open-file limit towards `wantedFileDescriptors` (the hard limit too, where
    /// privileged). Returns the soft limit now in force (-1 if it could not be read).
    @discardableResult
    public static func prepareForManyConnections(wantedFileDescriptors: Int = 0) -> Int {
        rg_ignore_sigpipe()
        return Int(rg_raise_nofile_limit_to(wantedFileDescriptors))
    }
}

/// Receives process signals (SIGTERM, SIGINT, SIGHUP) synchronously through a signalfd.
///
/// Create it **before** any thread is started (before the ``EventLoopGroup``): it blocks the
/// signals in the calling thread, threads created afterwards inherit that mask, and the signals
/// are then only ever read here — never delivered asynchronously to a random thread.
public final class SignalReceiver: Sendable {
    private let fd: Int32

    /// Blocks `signals` and opens a signalfd for them.
    public init(signals: [Int32]) throws {
        let fd = signals.withUnsafeBufferPointer { rg_signalfd($0.baseAddress, Int32($0.count)) }
        guard fd >= 0 else {
            throw TransportError(.configuration, "could not open a signalfd for signals \(signals)", cause: OpenSSLErrors.errnoText(rg_errno()))
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Blocks until one of the signals arrives and returns its number.
    public func next() -> Int32 {
        while true {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, -1)
            let number = rg_signalfd_read(fd)
            if number > 0 { return number }
        }
    }
}
