import Foundation

/// The executables this package built, for tests that run them as real processes.
public enum PackageExecutables {
    /// The path of the built executable `name` (e.g. `reader-gateway`): it sits next to
    /// the test bundle, which may itself be a directory (`…/X.xctest/…`).
    public static func path(_ name: String) -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = (me as NSString).deletingLastPathComponent
        while directory.contains(".xctest") { directory = (directory as NSString).deletingLastPathComponent }
        return directory + "/" + name
    }
}
