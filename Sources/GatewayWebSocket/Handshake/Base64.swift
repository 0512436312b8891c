/// Standard base64 (RFC 4648 §4, with padding), the encoding of `Sec-WebSocket-Key` and
/// `Sec-WebSocket-Accept`.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` encoded, padded with `=` to a multiple of four characters.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let remaining = input.count - index
            let b0 = UInt32(input[index])
            let b1 = remaining > 1 ? UInt32(input[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(input[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            out.append(remaining > 1 ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
            out.append(remaining > 2 ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a canonical padded base64 string, or nil when it is not one (wrong
    /// length, a character outside the alphabet, misplaced padding, non-zero padding bits).
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            var values: [UInt32] = []
            var padding = 0
            for offset in 0..<4 {
                let character = input[index + offset]
                if character == UInt8(ascii: "=") {
                    guard isLast, offset >= 2 else { return nil }
                    padding += 1
                    values.append(0)
                } else {
                    guard padding == 0, let value = sextet(character) else { return nil }
                    values.append(value)
                }
            }
            let triple = values[0] << 18 | values[1] << 12 | values[2] << 6 | values[3]
            out.append(UInt8(truncatingIfNeeded: triple >> 16))
            if padding < 2 { out.append(UInt8(truncatingIfNeeded: triple >> 8)) } else if triple & 0xFFFF != 0 { return nil }
            if padding < 1 { out.append(UInt8(truncatingIfNeeded: triple)) } else if triple & 0xFF != 0 { return nil }
            index += 4
        }
        return out
    }

    private static func sextet(_ character: UInt8) -> UInt32? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
