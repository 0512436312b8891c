import GatewayWire

/// A payment as the lane sees it (Stripe's `PaymentIntent`): after collect, the card the
/// customer presented; after confirm, its status and the amount received.
///
/// The id (`pi_…`) is the PaymentIntent your backend created with Stripe's API for the amount
/// (`POST /v1/payment_intents`, `payment_method_types: ["card_present"]`); the gateway and the
/// reader use it as the payment's name.
public struct PaymentIntent: Sendable, Hashable {
    /// The PaymentIntent's status (Stripe's `PaymentIntentStatus`).
    public enum Status: Sendable, Hashable {
        case requiresPaymentMethod, requiresConfirmation, requiresCapture, processing, canceled, succeeded
        /// A status this version does not know, by its name.
        case other(String)

        /// Stripe's API name of the status (`requires_confirmation`, `succeeded`, ...).
        public var name: String {
            switch self {
            case .requiresPaymentMethod: "requires_payment_method"
            case .requiresConfirmation: "requires_confirmation"
            case .requiresCapture: "requires_capture"
            case .processing: "processing"
            case .canceled: "canceled"
            case .succeeded: "succeeded"
            case .other(let name): name
            }
        }

        init(_ name: String) {
            self = switch name {
            case "requires_payment_method", "": .requiresPaymentMethod
            case "requires_confirmation": .requiresConfirmation
            case "requires_capture": .requiresCapture
            case "processing": .processing
            case "canceled": .canceled
            case "succeeded": .succeeded
            default: .other(name)
            }
        }
    }

    /// The PaymentIntent's id (`pi_…`).
    public var id: String
    public var status: Status
    /// The amount received once confirmed, in the currency's minor unit (cents).
    public var amountReceived: Int64
    /// The card collected, once collect has answered.
    public var paymentMethod: PaymentMethod?

    /// After collect: the card presented; the payment waits for confirm.
    init(collected wire: ReaderGatewayV1.CollectPaymentMethodResponse) {
        id = wire.paymentIntentID
        status = .requiresConfirmation
        amountReceived = 0
        paymentMethod = wire.paymentMethod.map(PaymentMethod.init)
    }

    /// After confirm: its status and the amount received.
    init(confirmed wire: ReaderGatewayV1.PaymentIntentResult, paymentMethod: PaymentMethod? = nil) {
        id = wire.paymentIntentID
        status = Status(wire.status)
        amountReceived = wire.amountReceived
        self.paymentMethod = paymentMethod
    }
}

/// The card a customer presented (Stripe's `PaymentMethod` with `CardPresentDetails`).
public struct PaymentMethod: Sendable, Hashable {
    /// The PaymentMethod's id (`pm_…`).
    public var id: String
    /// The card brand (`visa`, `mastercard`, ...).
    public var brand: String
    /// The card number's last four digits.
    public var last4: String
    public var expMonth: UInt32
    public var expYear: UInt32
    /// How the card was read (`contactless_emv`, `contact_emv`, `magnetic_stripe_track2`, ...).
    public var readMethod: String

    init(_ wire: ReaderGatewayV1.PaymentMethod) {
        id = wire.id
        brand = wire.brand
        last4 = wire.last4
        expMonth = wire.expMonth
        expYear = wire.expYear
        readMethod = wire.readMethod
    }
}
