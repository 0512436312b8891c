/// A command line or environment that cannot be used. The description is one
/// line that names the option and says what was expected.
public struct OptionsError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The exit status for usage errors (`EX_USAGE` from sysexits.h).
    public static let exitCode: Int32 = 64

    public let description: String

    public init(_ description: String) { self.description = description }

    static func unknownOption(_ option: String, program: String) -> OptionsError {
        OptionsError("\(program): unknown option \(option) (see \(program) --help)")
    }

    static func missingValue(name: String, valueName: String, program: String) -> OptionsError {
        OptionsError("\(program): --\(name) needs a value: --\(name) \(valueName)")
    }

    static func malformed(name: String, value: String, expected: String, program: String) -> OptionsError {
        OptionsError("\(program): --\(name) \(value.debugDescription) is not valid: expected \(expected)")
    }
}
