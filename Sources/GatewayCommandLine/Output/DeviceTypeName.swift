import GatewayWire

extension ReaderGatewayV1.DeviceType {
    /// The lower-case name used on command lines and in output: `simulated_wisepos_e`,
    /// `bbpos_wisepos_e`, `stripe_s700`, `stripe_s710`, `mobile`, `tap_to_pay`, `bbpos_wisepad3`, `stripe_m2`, `bbpos_chipper2x_bt`.
    public var commandLineName: String {
        switch self {
        case .bbposWiseposE: "bbpos_wisepos_e"
        case .stripeS700: "stripe_s700"
        case .stripeS710: "stripe_s710"
        case .simulatedWiseposE: "simulated_wisepos_e"
        case .mobile: "mobile"
        case .tapToPay: "tap_to_pay"
        case .bbposWisepad3: "bbpos_wisepad3"
        case .stripeM2: "stripe_m2"
        case .bbposChipper2xBt: "bbpos_chipper2x_bt"
        default: "unspecified"
        }
    }

    /// The device type named `name` (see ``commandLineName``); nil when unknown.
    public init?(commandLineName name: String) {
        guard let match = Self.knownValues.first(where: { $0.commandLineName == name.lowercased() && $0 != .unspecified }) else { return nil }
        self = match
    }
}
