/// A connection's open calls by stream id. Nearly every connection carries one call at a
/// time (a reader's Attach, for days): that one is held inline, and only further calls take
/// a dictionary, where a dictionary per connection held its storage for the connection's life.
struct CallTable {
    private var firstID: UInt32 = 0
    private var first: ServerCall?
    private var others: [UInt32: ServerCall] = [:]

    subscript(id: UInt32) -> ServerCall? {
        get {
            if let first, firstID == id { return first }
            return others.isEmpty ? nil : others[id]
        }
        set {
            if let newValue {
                if first == nil || firstID == id {
                    firstID = id
                    first = newValue
                } else {
                    others[id] = newValue
                }
            } else {
                removeValue(forKey: id)
            }
        }
    }

    @discardableResult
    mutating func removeValue(forKey id: UInt32) -> ServerCall? {
        if let call = first, firstID == id {
            first = nil
            firstID = 0
            return call
        }
        return others.isEmpty ? nil : others.removeValue(forKey: id)
    }
}
