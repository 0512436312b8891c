import Foundation
import GatewayCommandLine
import Synchronization

/// Writes whole lines to stdout at once (unbuffered), so concurrent readers never interleave
/// within a line and a test reading the pipe sees each line as soon as it happens.
enum Output {
    private static let lock = Mutex(())

    static func line(_ line: OutputLine) {
        write(line.description)
    }

    static func line(_ event: String, _ fields: KeyValuePairs<String, String>) {
        line(OutputLine(event, fields))
    }

    static func write(_ text: String) {
        let data = Data((text + "\n").utf8)
        lock.withLock { _ in FileHandle.standardOutput.write(data) }
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
