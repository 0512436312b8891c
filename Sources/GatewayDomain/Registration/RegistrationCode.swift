/// A short, human-typable code that an unregistered reader displays and an
/// admin types in to register it (Stripe's "registration code" or "pairing
/// code").
///
/// Codes are eight characters from Crockford's base-32 alphabet, shown as two
/// groups (`K7QD-3MXA`): no I, L, O or U, so nothing reads as something else.
/// When typed back, case, spaces and dashes do not matter, and the look-alikes
/// O → 0, I and L → 1 are folded. 32⁸ ≈ 10¹² codes: with codes expiring in
/// minutes and single use, guessing one is hopeless.
public struct RegistrationCode: Hashable, Sendable, CustomStringConvertible {
    /// The alphabet, in value order (Crockford base 32).
    static let alphabet: [Character] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    static let length = 8

    /// The canonical form: eight upper-case characters, no dash.
    public let canonical: String

    /// A fresh random code.
    public static func generate<G: RandomNumberGenerator>(using generator: inout G) -> RegistrationCode {
        var characters: [Character] = []
        characters.reserveCapacity(length)
        for _ in 0..<length {
            characters.append(alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))])
        }
        return RegistrationCode(canonical: String(characters))
    }

    /// A fresh random code from the system's secure generator.
    public static func generate() -> RegistrationCode {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// Reads a code as a person typed it.
    public init(typed input: String) throws(RegistrationError) {
        var characters: [Character] = []
        for character in input.uppercased() {
            switch character {
            case " ", "-", "\t": continue
            case "O": characters.append("0")
            case "I", "L": characters.append("1")
            default:
                guard RegistrationCode.alphabet.contains(character) else {
                    throw .malformedCode(input, because: "\"\(character)\" is not a character registration codes use")
                }
                characters.append(character)
            }
        }
        guard characters.count == RegistrationCode.length else {
            throw .malformedCode(input, because: "a registration code has \(RegistrationCode.length) characters, this has \(characters.count)")
        }
        self.canonical = String(characters)
    }

    init(canonical: String) { self.canonical = canonical }

    /// The form a reader displays: `K7QD-3MXA`.
    public var displayed: String {
        String(canonical.prefix(4)) + "-" + String(canonical.suffix(4))
    }

    public var description: String { displayed }
}
