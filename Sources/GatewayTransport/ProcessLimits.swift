import CGatewayLinux

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
