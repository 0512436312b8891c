import GatewayWire

/// A card (or wallet) a customer presents to a simulated reader: the Tap to Pay phone's
/// (`TapToPayReader.Card`) and the simulated Bluetooth readers' (`SimulatedBluetoothAir.Card`).
public struct SimulatedCard: Sendable, Hashable {
    public var brand: String
    public var last4: String

    public init(brand: String = "visa", last4: String = "4242") {
        self.brand = brand
        self.last4 = last4
    }
}

/// The command results a simulated reader in the client library answers with.
enum SimulatedCommandResult {
    /// A result with only a status.
    static func status(_ id: UInt64, _ status: ReaderGatewayV1.Status) -> ReaderGatewayV1.CommandResult {
        var result = ReaderGatewayV1.CommandResult()
        result.commandID = id
        result.status = status
        return result
    }

    /// A collect's answer: the payment method read from `card` (id `pm_<prefix>_<reader>_<command>`).
    static func collected(id: UInt64, card: SimulatedCard, idPrefix: String, reader: String, readMethod: String) -> ReaderGatewayV1.CommandResult {
        var method = ReaderGatewayV1.PaymentMethod()
        method.id = "pm_\(idPrefix)_\(reader)_\(id)"
        method.brand = card.brand
        method.last4 = card.last4
        method.expMonth = 12
        method.expYear = 2030
        method.readMethod = readMethod
        var collected = status(id, .ok)
        collected.result = .paymentMethod(method)
        return collected
    }
}
