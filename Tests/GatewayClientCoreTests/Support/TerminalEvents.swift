import GatewayClientCore

extension AsyncStream<TerminalEvent>.Iterator {
    /// The next event that `matches`, skipping the others; nil if the stream ended.
    mutating func next(where matches: (TerminalEvent) -> Bool) async -> TerminalEvent? {
        while let event = await next() {
            if matches(event) { return event }
        }
        return nil
    }
}
