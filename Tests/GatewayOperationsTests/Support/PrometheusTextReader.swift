/// A strict reader of the Prometheus text format, written independently of
/// the renderer so the tests can parse the exposition back.
struct PrometheusTextReader {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Family {
        var help: String?
        var type: String?
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var families: [String: Family] = [:]
    private(set) var samples: [Sample] = []

    init(_ text: String) throws {
        guard text.hasSuffix("\n") else { throw Malformed(description: "exposition does not end in a line feed") }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count == 4 else { throw Malformed(description: "bad comment: \(line)") }
                let name = String(parts[2])
                if parts[1] == "HELP" {
                    guard families[name]?.help == nil else { throw Malformed(description: "second HELP for \(name)") }
                    families[name, default: Family()].help = try Self.unescape(String(parts[3]), quotes: false)
                } else {
                    guard families[name]?.type == nil else { throw Malformed(description: "second TYPE for \(name)") }
                    guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                        throw Malformed(description: "unknown type in \(line)")
                    }
                    guard !samples.contains(where: { Self.family(of: $0.name) == name }) else {
                        throw Malformed(description: "TYPE after samples for \(name)")
                    }
                    families[name, default: Family()].type = String(parts[3])
                }
                continue
            }
            guard !line.isEmpty, !line.hasPrefix("#") else { throw Malformed(description: "unexpected line: \(line)") }
            samples.append(try Self.sample(String(line)))
        }
    }

    func type(of sampleName: String) -> String? { families[Self.family(of: sampleName)]?.type ?? families[sampleName]?.type }

    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    static func family(of name: String) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            return String(name.dropLast(suffix.count))
        }
        return name
    }

    private static func sample(_ line: String) throws -> Sample {
        var characters = Substring(line)
        let name = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard !name.isEmpty else { throw Malformed(description: "no metric name: \(line)") }
        characters = characters.dropFirst(name.count)
        var labels: [String: String] = [:]
        if characters.first == "{" {
            characters = characters.dropFirst()
            while characters.first != "}" {
                let labelName = characters.prefix { $0 != "=" }
                characters = characters.dropFirst(labelName.count)
                guard characters.hasPrefix("=\"") else { throw Malformed(description: "bad label in \(line)") }
                characters = characters.dropFirst(2)
                var raw = ""
                var escaped = false
                while let character = characters.first {
                    characters = characters.dropFirst()
                    if escaped { raw.append("\\"); raw.append(character); escaped = false; continue }
                    if character == "\\" { escaped = true; continue }
                    if character == "\"" { break }
                    raw.append(character)
                }
                guard labels.updateValue(try unescape(raw, quotes: true), forKey: String(labelName)) == nil else {
                    throw Malformed(description: "duplicate label in \(line)")
                }
                if characters.first == "," { characters = characters.dropFirst() }
                guard !characters.isEmpty else { throw Malformed(description: "unterminated labels in \(line)") }
            }
            characters = characters.dropFirst()
        }
        guard characters.first == " " else { throw Malformed(description: "no value in \(line)") }
        let text = characters.dropFirst()
        let value: Double? = switch text {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(text)
        }
        guard let value else { throw Malformed(description: "bad value in \(line)") }
        return Sample(name: String(name), labels: labels, value: value)
    }

    private static func unescape(_ text: String, quotes: Bool) throws -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "\"" where quotes: result.append("\"")
                default: throw Malformed(description: "bad escape \\\(character)")
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        guard !escaped else { throw Malformed(description: "dangling backslash") }
        return result
    }
}
