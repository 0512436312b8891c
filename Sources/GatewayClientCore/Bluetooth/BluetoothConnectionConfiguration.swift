/// How to connect a Bluetooth reader (Stripe's `BluetoothConnectionConfiguration`).
public struct BluetoothConnectionConfiguration: Sendable {
    /// Required: the location the gateway registers the reader to at connect.
    public var locationID: String
    /// Reconnect by itself after an unexpected disconnect (the gateway keeps the reader's
    /// owner meanwhile); default true.
    public var autoReconnectOnUnexpectedDisconnect: Bool
    /// How long a connect waits for the reader to be within reach.
    public var connectTimeout: Duration
    /// How long an automatic reconnect tries before it fails (`didFailReconnect`).
    public var reconnectTimeout: Duration
    /// How often the reader's link reports it alive (shorter than the gateway's offline bound).
    public var heartbeatInterval: Duration
    /// WisePad 3 numeric comparison, the device's side: show the passkey (the reader shows
    /// the same 6 digits) and return true when the user selects Pair. Only asked when pairing
    /// with a new (or forgotten) device.
    public var pairOnDevice: @Sendable (_ passkey: String) async -> Bool

    public init(
        locationID: String, autoReconnectOnUnexpectedDisconnect: Bool = true, connectTimeout: Duration = .seconds(30),
        reconnectTimeout: Duration = .seconds(60), heartbeatInterval: Duration = .milliseconds(500),
        pairOnDevice: @escaping @Sendable (_ passkey: String) async -> Bool = { _ in false }
    ) {
        self.locationID = locationID
        self.autoReconnectOnUnexpectedDisconnect = autoReconnectOnUnexpectedDisconnect
        self.connectTimeout = connectTimeout
        self.reconnectTimeout = reconnectTimeout
        self.heartbeatInterval = heartbeatInterval
        self.pairOnDevice = pairOnDevice
    }
}
