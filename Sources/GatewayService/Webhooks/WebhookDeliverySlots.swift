/// How many deliveries this replica has in flight, overall and per endpoint: the bound that
/// keeps a slow endpoint from taking every slot, as a plain value fed under the worker's lock.
struct WebhookDeliverySlots: Sendable, Hashable {
    let maximum: Int
    let maximumPerEndpoint: Int
    private(set) var inFlight = 0
    private(set) var perEndpoint: [String: Int] = [:]

    init(maximum: Int, maximumPerEndpoint: Int) {
        self.maximum = max(1, maximum)
        self.maximumPerEndpoint = max(1, min(maximumPerEndpoint, self.maximum))
    }

    /// Free slots overall.
    var free: Int { maximum - inFlight }

    /// Endpoints with no free slot (left out of the next claim).
    var fullEndpoints: [String] { perEndpoint.filter { $0.value >= maximumPerEndpoint }.map(\.key).sorted() }

    /// How many deliveries `endpoint` may start now.
    func room(for endpoint: String) -> Int { max(0, min(free, maximumPerEndpoint - perEndpoint[endpoint, default: 0])) }

    /// Takes `count` slots for `endpoint` (as many as were claimed: never more than ``room(for:)``).
    mutating func take(_ count: Int, for endpoint: String) {
        guard count > 0 else { return }
        inFlight += count
        perEndpoint[endpoint, default: 0] += count
    }

    /// Gives one slot of `endpoint` back (its delivery finished).
    mutating func release(_ endpoint: String) {
        guard let held = perEndpoint[endpoint], held > 0 else { return }
        inFlight -= 1
        perEndpoint[endpoint] = held == 1 ? nil : held - 1
    }
}
