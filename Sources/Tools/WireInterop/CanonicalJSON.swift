import GatewayCore
import GatewayWire

/// Writes a decoded message as canonical JSON that the Python side of the
/// interop test produces from the same message with the official runtime:
/// every field by its Swift name, integers as decimal strings, floats as
/// their IEEE bit patterns, bytes as hex, enums as numbers, oneofs as
/// `{"case": value}`, absent messages and optionals as null.
enum CanonicalJSON {
    static func encode(_ value: Any) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var out = ""
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return out
    }

    static func string(_ text: String, to out: inout String) { out += JSONText.quoted(text) }

    private static func write(_ value: Any, to out: inout String) {
        switch value {
        case let message as any ProtobufMessage:
            writeMessage(message, to: &out)
        case let enumValue as any ProtobufEnum:
            string(String(enumValue.rawValue), to: &out)
        case let bytes as [UInt8] where type(of: value) == [UInt8].self:
            string(hex(bytes), to: &out)
        case let text as String:
            string(text, to: &out)
        case let flag as Bool:
            out += flag ? "true" : "false"
        case let number as Int32: string(String(number), to: &out)
        case let number as Int64: string(String(number), to: &out)
        case let number as UInt32: string(String(number), to: &out)
        case let number as UInt64: string(String(number), to: &out)
        case let number as Float: string(String(number.bitPattern), to: &out)
        case let number as Double: string(String(number.bitPattern), to: &out)
        case let array as [Any]:
            out += "["
            for (index, element) in array.enumerated() {
                if index > 0 { out += "," }
                write(element, to: &out)
            }
            out += "]"
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                if let first = mirror.children.first { write(first.value, to: &out) } else { out += "null" }
            } else if mirror.displayStyle == .enum, let first = mirror.children.first, let label = first.label {
                out += "{"
                string(label, to: &out)
                out += ":"
                write(first.value, to: &out)
                out += "}"
            } else if let boxed = unbox(value) {
                write(boxed, to: &out)
            } else {
                string("unsupported \(type(of: value))", to: &out)
            }
        }
    }

    private static func unbox(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard String(describing: type(of: value)).hasPrefix("ProtobufBox<") else { return nil }
        return mirror.children.first { $0.label == "value" }?.value
    }

    private static func writeMessage(_ message: any ProtobufMessage, to out: inout String) {
        out += "{"
        var first = true
        for child in Mirror(reflecting: message).children {
            guard var label = child.label, label != "unknownFields" else { continue }
            if label.hasPrefix("_") { label.removeFirst() }
            if !first { out += "," }
            first = false
            string(label, to: &out)
            out += ":"
            write(child.value, to: &out)
        }
        out += "}"
    }
}
