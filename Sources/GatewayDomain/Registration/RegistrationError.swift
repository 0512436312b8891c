/// Why a registration request cannot be accepted. Each message says what was
/// wrong with the input and what to send instead.
public struct RegistrationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of mistake it is; extensible without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String { case malformedCode, noSerials, malformedSerial, duplicateSerial, tooManySerials, malformedLabel }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The registration code is not eight characters of the code alphabet.
        public static let malformedCode = Code(.malformedCode)
        /// The serial list is empty.
        public static let noSerials = Code(.noSerials)
        /// A serial number has characters or a length serials never have.
        public static let malformedSerial = Code(.malformedSerial)
        /// The same serial appears twice in one request.
        public static let duplicateSerial = Code(.duplicateSerial)
        /// More serials than one request may register.
        public static let tooManySerials = Code(.tooManySerials)
        /// The label is empty after trimming or too long.
        public static let malformedLabel = Code(.malformedLabel)

        public var description: String { value.rawValue }
    }

    public let code: Code
    public let message: String

    public var description: String { message }

    static func malformedCode(_ input: String, because reason: String) -> RegistrationError {
        RegistrationError(code: .malformedCode, message: "registration code \(input.debugDescription) is not valid: \(reason); type the code the reader displays, e.g. K7QD-3MXA")
    }
}
