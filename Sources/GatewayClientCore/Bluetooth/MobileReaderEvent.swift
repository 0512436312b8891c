import GatewayChannel
import GatewayWire

/// What a connected Bluetooth reader tells the app (Stripe's `MobileReaderDelegate`).
public enum MobileReaderEvent: Sendable, Equatable {
    /// The reader disconnected unexpectedly and the client reconnects by itself
    /// (`reader:didStartReconnect:disconnectReason:`); ``BluetoothReaderConnection/cancelReconnect()``
    /// stops it. The gateway keeps the reader's owner meanwhile.
    case didStartReconnect(serialNumber: String, reason: DisconnectReason)
    /// The reader is connected again (`readerDidSucceedReconnect:`).
    case didSucceedReconnect(serialNumber: String)
    /// The reconnect failed or was cancelled (`readerDidFailReconnect:`); ``didDisconnect``
    /// follows.
    case didFailReconnect(serialNumber: String)
    /// The reader is disconnected (`reader:didDisconnect:`), and why.
    case didDisconnect(serialNumber: String, reason: DisconnectReason)
    /// A WisePad 3 pairing shows this passkey on the reader and on the device: check that
    /// they match, select Confirm on the reader and Pair on the device.
    case didRequestPairing(serialNumber: String, passkey: String)
}
