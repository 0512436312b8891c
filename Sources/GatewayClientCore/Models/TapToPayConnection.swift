import GatewayWire

/// What ``TerminalClient/connectTapToPayReader(device:_:reader:)`` answers: the phone's own
/// reader, connected, and what the connect did at the gateway (the gateway's own: Stripe's
/// `connectReader` answers the ``Reader`` alone). The reader's credential the gateway issued
/// stays inside the client (it attaches the reader's link with it): it is no part of this.
public struct TapToPayConnection: Sendable, Hashable {
    /// The phone's reader, registered to the location and connected to the session.
    public var reader: Reader
    /// The name the tap screen shows.
    public var merchantDisplayName: String
    /// Whether this connect accepted the account's Tap to Pay terms (its first ever).
    public var termsAcceptedNow: Bool
    /// The accounts the device served in the last 24 hours, this one included (at most 3).
    public var accountsInWindow: Int
    /// The device's setup this connect ran (a configuration update, reported through the
    /// delegate's update callbacks); nil when the device was set up already.
    public var deviceSetup: ReaderSoftwareUpdate?

    init(_ wire: ReaderGatewayV1.ConnectTapToPayReaderResponse, reader: ReaderGatewayV1.Reader) {
        self.reader = Reader(reader)
        merchantDisplayName = wire.merchantDisplayName
        termsAcceptedNow = wire.termsAcceptedNow
        accountsInWindow = Int(wire.accountsInWindow)
        deviceSetup = wire.deviceSetup.map(ReaderSoftwareUpdate.init)
    }
}

extension TapToPayConnection: CustomStringConvertible {
    public var description: String {
        var d = ProtobufDescription("TapToPayConnection")
        d.value("reader", reader, isDefault: false)
        d.string("merchantDisplayName", merchantDisplayName)
        d.value("termsAcceptedNow", termsAcceptedNow, isDefault: !termsAcceptedNow)
        d.value("accountsInWindow", accountsInWindow, isDefault: accountsInWindow == 0)
        if let deviceSetup { d.value("deviceSetup", deviceSetup, isDefault: false) }
        return d.text
    }
}
