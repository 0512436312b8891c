import GatewayWire

/// A card (or wallet) a customer presents to a reader the device hosts: the Tap to Pay
/// phone's own reader (`TapToPayReader.Card`) and the simulated Bluetooth readers of the
/// `GatewaySimulators` library (their air's `Card`).
public struct PresentedCard: Sendable, Hashable {
    public var brand: String
    public var last4: String

    public init(brand: String = "visa", last4: String = "4242") {
        self.brand = brand
        self.last4 = last4
    }
}

/// The command results a reader hosted on the device answers the gateway with: the Tap to Pay
/// reader here, and the simulated Bluetooth readers of `GatewaySimulators` (which is why this
/// is package: the seam both build their answers on, so that they answer alike; not app API).
package enum ReaderCommandResults {
    /// A result with only a status.
    package static func status(_ id: UInt64, _ status: ReaderGatewayV1.Status) -> ReaderGatewayV1.CommandResult {
        var result = ReaderGatewayV1.CommandResult()
        result.commandID = id
        result.status = status
        return result
    }

    /// A collect's answer: the payment method read from `card` (id `pm_<prefix>_<reader>_<command>`).
    package static func collected(id: UInt64, card: PresentedCard, idPrefix: String, reader: String, readMethod: String) -> ReaderGatewayV1.CommandResult {
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
