import CGatewayOpenSSL
import Glibc

/// Reading OpenSSL's per-thread error queue and errno into text.
enum OpenSSLErrors {
    /// Drains the error queue into one line ("error:0A000086:SSL routines::certificate verify failed; ...").
    static func drain() -> String? {
        var parts: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(String(nulTerminated: buffer))
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// The text of an errno value.
    static func errnoText(_ value: Int32) -> String {
        String(cString: strerror(value))
    }
}

extension String {
    /// Decodes a NUL-terminated C buffer.
    init(nulTerminated buffer: [CChar]) {
        self = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
