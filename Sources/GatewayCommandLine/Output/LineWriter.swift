import Foundation
import Synchronization

/// Writes whole lines to stdout at once (unbuffered), so concurrent tasks never interleave
/// within a line and a test reading the pipe sees each line as soon as it happens.
public enum LineWriter {
    private static let lock = Mutex(())

    public static func line(_ line: OutputLine) {
        write(line.description)
    }

    public static func line(_ event: String, _ fields: KeyValuePairs<String, String>) {
        line(OutputLine(event, fields))
    }

    public static func write(_ text: String) {
        let data = Data((text + "\n").utf8)
        lock.withLock { _ in FileHandle.standardOutput.write(data) }
    }

    public static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
