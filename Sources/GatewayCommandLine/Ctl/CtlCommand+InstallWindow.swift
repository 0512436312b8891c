import GatewayCore
import GatewayWire

extension CtlCommand {
    /// `locations update LOCATION --install-window W | --clear-install-window`.
    static func parseLocationUpdate(_ words: [String], _ options: ParsedOptions) throws(OptionsError) -> CtlCommand {
        guard words.count > 2 else { throw usage("`locations update` needs a LOCATION id") }
        if words.count > 3 { throw usage("unexpected argument \"\(words[3])\"") }
        let clear = try options.flag("clear-install-window")
        switch (options.string("install-window"), clear) {
        case (let text?, false):
            guard let window = InstallWindowText.parse(text) else { throw InstallWindowText.invalid(text) }
            return .setInstallWindow(locationID: words[2], window: window)
        case (nil, true):
            return .setInstallWindow(locationID: words[2], window: nil)
        case (.some, true):
            throw usage("`locations update` takes --install-window or --clear-install-window, not both")
        case (nil, false):
            throw usage("`locations update` needs --install-window START-END±HH:MM or --clear-install-window")
        }
    }
}
