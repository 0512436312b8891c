import GatewayCommandLine

/// reader-sim's stdout: one `EVENT key=value ...` line per event.
typealias Output = LineWriter
