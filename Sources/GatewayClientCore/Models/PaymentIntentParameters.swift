import GatewayWire

/// The payment to collect (what Stripe Terminal's `PaymentIntent` and `CollectConfiguration`
/// give `collectPaymentMethod`).
///
/// `id` is the PaymentIntent your backend created with Stripe's API for this amount
/// (`POST /v1/payment_intents` with `payment_method_types: ["card_present"]`); the gateway and
/// the reader name the payment by it.
public struct PaymentIntentParameters: Sendable, Hashable {
    /// The PaymentIntent's id (`pi_…`).
    public var id: String
    /// The amount, in the currency's minor unit (cents).
    public var amount: Int64
    /// The ISO currency code, lower case (`usd`).
    public var currency: String
    /// Skip the tip screen on the reader.
    public var skipTipping: Bool

    public init(id: String, amount: Int64, currency: String, skipTipping: Bool = false) {
        self.id = id
        self.amount = amount
        self.currency = currency
        self.skipTipping = skipTipping
    }

    /// The parameters as the wire carries them.
    var message: ReaderGatewayV1.CollectPaymentMethodParams {
        var params = ReaderGatewayV1.CollectPaymentMethodParams()
        params.paymentIntentID = id
        params.amount = amount
        params.currency = currency
        params.skipTipping = skipTipping
        return params
    }
}
