// The plain build of a fuzz target (without libFuzzer): replaying inputs through the
// target's checks, and writing its starting corpus. Shared by wire-fuzz and websocket-fuzz.
#if canImport(Glibc)
import Glibc
#endif

public enum FuzzReplay {
    /// `PROGRAM replay FILE...` runs each file through `runOne` (reproduces a crash without the
    /// fuzzer); `PROGRAM seeds DIR` calls `writeSeeds(DIR)`. Anything else prints `usage`.
    public static func main(usage: String, runOne: (UnsafeRawBufferPointer) -> Void, writeSeeds: (String) -> Void) {
        let arguments = CommandLine.arguments.dropFirst()
        switch (arguments.first, arguments.count) {
        case ("replay"?, _):
            for path in arguments.dropFirst() {
                let bytes = readInput(path)
                bytes.withUnsafeBytes { runOne($0) }
                print("ok \(path) (\(bytes.count) bytes)")
            }
        case ("seeds"?, 2):
            writeSeeds(arguments[arguments.startIndex + 1])
        default:
            print(usage)
        }
    }

    /// The whole file; a file that cannot be read ends the program with its name and errno,
    /// so that a replay never passes on an input it did not run.
    public static func readInput(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { fail("cannot open \(path)") }
        defer { fclose(file) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            out.append(contentsOf: chunk[0..<count])
        }
        if ferror(file) != 0 { fail("cannot read \(path)") }
        return out
    }

    /// Writes a seed input, creating its folders. A seed that cannot be written ends the program.
    public static func writeInput(_ path: String, _ bytes: [UInt8]) {
        for slash in path.indices.dropFirst() where path[slash] == "/" {
            let folder = String(path[..<slash])
            if mkdir(folder, 0o755) != 0, errno != EEXIST { fail("cannot create the folder \(folder)") }
        }
        guard let file = fopen(path, "wb") else { fail("cannot create \(path)") }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        if fclose(file) != 0 || written != bytes.count { fail("cannot write \(path)") }
    }

    private static func fail(_ what: String) -> Never {
        let line = "\(CommandLine.arguments.first ?? "fuzz"): \(what): \(String(cString: strerror(errno)))\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        exit(1)
    }
}
