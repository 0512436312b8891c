/// Parses flags and environment variables into ``ParsedOptions``.
///
/// Flags win over the environment, the environment wins over defaults.
/// Unknown flags, missing values and malformed values are errors whose
/// message fits on one line; executables print it and exit with status 64
/// (`EX_USAGE`).
public struct OptionsParser: Sendable {
    public let program: String
    public let summary: String
    public let environmentPrefix: String
    public let options: [CommandLineOption]

    public init(program: String, summary: String, environmentPrefix: String, options: [CommandLineOption]) {
        self.program = program
        self.summary = summary
        self.environmentPrefix = environmentPrefix
        self.options = options + [.flag("help", help: "Print this help and exit.")]
    }

    /// The environment variable that sets `option`.
    public func environmentName(_ option: CommandLineOption) -> String {
        environmentPrefix + "_" + option.name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    public func parse(arguments: [String], environment: [String: String]) throws(OptionsError) -> ParsedOptions {
        var values: [String: String] = [:]
        var sources: [String: ParsedOptions.Source] = [:]
        var positional: [String] = []
        let byName = Dictionary(uniqueKeysWithValues: options.map { ($0.name, $0) })

        for option in options {
            if let value = option.defaultValue {
                values[option.name] = value
                sources[option.name] = .default
            }
            if option.name != "help", let value = environment[environmentName(option)] {
                values[option.name] = value
                sources[option.name] = .environment
            }
        }

        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || !argument.hasPrefix("--") {
                if argument.hasPrefix("-") && argument != "-" && !onlyPositional {
                    throw OptionsError.unknownOption(argument, program: program)
                }
                positional.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            let body = argument.dropFirst(2)
            let name: String
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let option = byName[name] else {
                throw OptionsError.unknownOption("--" + name, program: program)
            }
            if option.isFlag {
                let raw = inlineValue ?? "true"
                guard ParsedOptions.parseBool(raw) != nil else {
                    throw OptionsError.malformed(name: name, value: raw, expected: "true or false", program: program)
                }
                values[name] = raw
            } else {
                if inlineValue == nil {
                    guard index < arguments.count else {
                        throw OptionsError.missingValue(name: name, valueName: option.valueName ?? "VALUE", program: program)
                    }
                    inlineValue = arguments[index]
                    index += 1
                }
                values[name] = inlineValue
            }
            sources[name] = .flag
        }
        return ParsedOptions(program: program, values: values, sources: sources, positional: positional)
    }

    /// Every option with its environment variable and default, for `--help`.
    public func helpText() -> String {
        var text = "\(program): \(summary)\n\nUsage: \(program) [options]\n\nOptions (flags win over environment variables, which win over defaults):\n"
        for option in options {
            var head = "  --\(option.name)"
            if let valueName = option.valueName { head += " \(valueName)" }
            text += head + "\n"
            text += "      \(option.help)\n"
            if option.name != "help" {
                var tail = "      env \(environmentName(option))"
                if let value = option.defaultValue, !option.isFlag {
                    tail += value.isEmpty ? "; default: (none)" : "; default: \(value)"
                }
                text += tail + "\n"
            }
        }
        return text
    }
}
