import GatewayWire

/// A place readers are registered to (Stripe's `Location`).
public struct Location: Sendable, Hashable {
    /// The location's id (`tml_…`).
    public var id: String
    public var displayName: String
    public var address: Address?

    init(_ wire: ReaderGatewayV1.Location) {
        id = wire.id
        displayName = wire.displayName
        address = wire.address.map(Address.init)
    }
}

/// A location's postal address (Stripe's `Address`).
public struct Address: Sendable, Hashable {
    public var line1: String
    public var line2: String
    public var city: String
    public var state: String
    public var postalCode: String
    public var country: String

    init(_ wire: ReaderGatewayV1.Address) {
        line1 = wire.line1
        line2 = wire.line2
        city = wire.city
        state = wire.state
        postalCode = wire.postalCode
        country = wire.country
    }
}
