import CGatewayOpenSSL

/// HMAC-SHA256 through OpenSSL (webhook signatures).
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), messageBytes.baseAddress, messageBytes.count,
                    &out, &length
                ) != nil
            }
        }
        // HMAC-SHA256 fails only when OpenSSL cannot allocate; an empty MAC then verifies nothing.
        return ok ? Array(out.prefix(Int(length))) : []
    }

    /// ``mac(key:message:)`` as lowercase hex.
    public static func hex(key: [UInt8], message: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in mac(key: key, message: message) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
