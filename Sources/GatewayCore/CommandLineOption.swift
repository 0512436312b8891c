/// One option an executable accepts, from a flag or an environment variable.
///
/// `--name value`, `--name=value`, and for switches a bare `--name`. The
/// environment variable is `PREFIX_NAME_IN_CAPITALS` (see ``OptionsParser``).
public struct CommandLineOption: Sendable, Hashable {
    /// The flag without its leading dashes, lower-kebab-case (`database-url`).
    public let name: String
    /// What the value is, for help text (`URL`, `PATH`, `SECONDS`). Nil for a switch.
    public let valueName: String?
    /// The default, shown in `--help`; nil when the option has no default.
    public let defaultValue: String?
    /// One sentence: what the option does.
    public let help: String

    /// An option that takes a value.
    public static func value(_ name: String, _ valueName: String, default defaultValue: String?, help: String) -> CommandLineOption {
        CommandLineOption(name: name, valueName: valueName, defaultValue: defaultValue, help: help)
    }

    /// A switch: present means true. `--name=false` turns it off.
    public static func flag(_ name: String, help: String) -> CommandLineOption {
        CommandLineOption(name: name, valueName: nil, defaultValue: "false", help: help)
    }

    public var isFlag: Bool { valueName == nil }
}
