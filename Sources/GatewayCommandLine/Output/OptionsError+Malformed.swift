import GatewayCore

extension OptionsError {
    /// `PROGRAM: --NAME "VALUE" is not valid: expected EXPECTED`, the wording GatewayCore uses.
    static func invalid(name: String, value: String, expected: String, program: String) -> OptionsError {
        OptionsError("\(program): --\(name) \(value.debugDescription) is not valid: expected \(expected)")
    }
}
