import GatewayRepositories

/// The point-of-sale device's own readers on the SDK surface: Tap to Pay (the device is its
/// reader) and Bluetooth readers it paired with. Each is registered to a location at
/// connect and given a credential; the device then attaches the reader's link on its own
/// connection and connects to it as to any reader (``SDKConnect``).
struct SDKMobile: Sendable {
    let clock: any ServiceClock
    /// The reader a session already holds, and the device's reader by its serial.
    let readerRecords: any ReaderRepository
    let locations: any LocationRepository
    let tapToPay: any TapToPayRepository
    let bluetooth: any BluetoothRepository
    let registry: LiveRegistry
    let lookup: SDKSessionLookup
}
