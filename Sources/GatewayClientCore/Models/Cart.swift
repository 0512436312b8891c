import GatewayWire

/// What the reader shows while the lane rings up items (Stripe Terminal's `Cart`), for
/// ``TerminalClient/setReaderDisplay(_:)``.
public struct Cart: Sendable, Hashable {
    /// One line of the cart (Stripe's `CartLineItem`).
    public struct LineItem: Sendable, Hashable {
        /// What is sold.
        public var displayName: String
        public var quantity: Int64
        /// The line's total, in the currency's minor unit (cents); negative for a discount.
        public var amount: Int64

        public init(displayName: String, quantity: Int64 = 1, amount: Int64) {
            self.displayName = displayName
            self.quantity = quantity
            self.amount = amount
        }
    }

    /// The ISO currency code, lower case (`usd`).
    public var currency: String
    /// The lines, in display order.
    public var lineItems: [LineItem]
    /// Tax, in minor units.
    public var tax: Int64
    /// Total, in minor units.
    public var total: Int64

    public init(currency: String, lineItems: [LineItem] = [], tax: Int64 = 0, total: Int64) {
        self.currency = currency
        self.lineItems = lineItems
        self.tax = tax
        self.total = total
    }

    /// The cart as the wire carries it.
    var message: ReaderGatewayV1.Cart {
        var cart = ReaderGatewayV1.Cart()
        cart.currency = currency
        cart.tax = tax
        cart.total = total
        cart.lineItems = lineItems.map { item in
            var line = ReaderGatewayV1.CartLineItem()
            line.description = item.displayName
            line.quantity = item.quantity
            line.amount = item.amount
            return line
        }
        return cart
    }
}
