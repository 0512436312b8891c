/// Decides which not-yet-established connections to close so that a newly accepted one can
/// start: the policy that keeps a flood of silent or dribbling sockets from locking new clients
/// out (`Sources/GatewayTransport/README.md`, "Floods and slowloris"). The TLS listeners use it
/// for connections in their handshake, the ops endpoint for connections still sending their
/// request.
///
/// A pure value: no sockets, no clock. The listener feeds it events and closes what it returns.
///
/// - Every connection accepted is admitted at once: a flood never makes a new client wait in the
///   kernel's backlog behind it.
/// - A source (an address; IPv6 by its /64) with ``maxPerSource`` connections in flight has its
///   own oldest one closed to make room: one source's flood stays within its own share.
/// - A listener with ``maxInFlight`` connections in flight closes one of the source that has the
///   most in flight (max-min fairness): that source's oldest. A source with a single connection
///   in flight is never touched while another source has two or more, so a new client on an
///   address of its own gets through a flood from any number of other addresses however fast
///   they reconnect. Only when every source has one connection in flight (a flood from as many
///   addresses as the cap) does it close the oldest overall.
/// - Either way, a connection that has not yet sent its first whole message (a ClientHello, a
///   request head) goes before one the server has answered: a real client, one round trip from
///   done, is the last to be closed.
///
/// Removing a connection that got through or closed is O(1) amortized: queues drop stale
/// entries lazily and are compacted once stale entries outnumber live ones.
///
/// Its methods are `@inlinable`, so the listeners that use it get code specialized for their
/// id and source types (no generic dispatch on the accept path).
@frozen
public struct ConnectionAdmission<ID: Hashable, Source: Hashable> {
    /// How far a connection has come.
    public enum Stage: Sendable {
        /// Accepted; the server has not yet read the client's first whole message.
        case awaitingHello
        /// The server answered the first message; the client's next step is due.
        case helloAnswered
    }

    /// Connections in flight at once, at most.
    public let maxInFlight: Int
    /// Connections in flight at once from one source, at most.
    public let maxPerSource: Int

    @usableFromInline var live: [ID: (source: Source, stage: Stage)] = [:]
    @usableFromInline var oldest = Queues()
    @usableFromInline var bySource: [Source: Queues] = [:]
    /// The sources by how many connections each has in flight, and the largest such count.
    @usableFromInline var sourcesByCount: [Int: Set<Source>] = [:]
    @usableFromInline var heaviest = 0

    @inlinable
    public init(maxInFlight: Int, maxPerSource: Int) {
        precondition(maxInFlight > 0 && maxPerSource > 0, "handshake caps must be positive")
        self.maxInFlight = maxInFlight
        self.maxPerSource = min(maxPerSource, maxInFlight)
    }

    /// Connections in flight now.
    @inlinable
    public var inFlight: Int { live.count }

    /// Connections in flight now from `source`.
    @inlinable
    public func inFlight(from source: Source) -> Int { bySource[source]?.count ?? 0 }

    /// Queue entries held, live and stale: a small multiple of ``inFlight`` (queues compact
    /// once stale entries outnumber live ones).
    @inlinable
    public var storedEntries: Int { oldest.storedCount + bySource.values.reduce(0) { $0 + $1.storedCount } }

    /// Whether `id` is in flight (admitted and not yet finished or evicted).
    @inlinable
    public func contains(_ id: ID) -> Bool { live[id] != nil }

    /// Admits a newly accepted connection; returns the connections to close to make room for it,
    /// oldest first (already forgotten here). `id` must be new.
    @inlinable
    public mutating func admit(_ id: ID, from source: Source) -> [ID] {
        precondition(live[id] == nil, "a connection is admitted once")
        var evicted: [ID] = []
        if inFlight(from: source) >= maxPerSource, let victim = bySource[source]?.first(in: live) {
            forget(victim)
            evicted.append(victim)
        }
        if live.count >= maxInFlight, let victim = globalVictim() {
            forget(victim)
            evicted.append(victim)
        }
        live[id] = (source, .awaitingHello)
        oldest.append(id, stage: .awaitingHello)
        let before = bySource[source]?.count ?? 0
        bySource[source, default: Queues()].append(id, stage: .awaitingHello)
        sourceCount(of: source, changedFrom: before, to: before + 1)
        return evicted
    }

    /// The connection to close at the listener's cap: the oldest of a source with the most in
    /// flight when that is two or more, else the oldest overall.
    @inlinable
    mutating func globalVictim() -> ID? {
        if heaviest >= 2, let source = sourcesByCount[heaviest]?.first {
            return bySource[source]?.first(in: live)
        }
        return oldest.first(in: live)
    }

    /// Moves `source` from one count's bucket to another's, keeping ``heaviest`` exact.
    @inlinable
    mutating func sourceCount(of source: Source, changedFrom old: Int, to new: Int) {
        if old > 0 {
            sourcesByCount[old]?.remove(source)
            if sourcesByCount[old]?.isEmpty == true { sourcesByCount[old] = nil }
        }
        if new > 0 { sourcesByCount[new, default: []].insert(source) }
        if new > heaviest { heaviest = new }
        while heaviest > 0 && sourcesByCount[heaviest] == nil { heaviest -= 1 }
    }

    /// The server answered `id`'s first message: it is now closed only after every connection
    /// that has not got that far.
    @inlinable
    public mutating func helloAnswered(_ id: ID) {
        guard let entry = live[id], entry.stage == .awaitingHello else { return }
        live[id] = (entry.source, .helloAnswered)
        oldest.promote(id)
        bySource[entry.source]?.promote(id)
    }

    /// `id` got through or closed (handshake done or failed, request answered, timed out). Unknown ids are ignored.
    @inlinable
    public mutating func finished(_ id: ID) {
        guard live[id] != nil else { return }
        forget(id)
    }

    @inlinable
    mutating func forget(_ id: ID) {
        guard let entry = live.removeValue(forKey: id) else { return }
        oldest.remove(stage: entry.stage, live: live)
        guard var queues = bySource.removeValue(forKey: entry.source) else { return }
        let before = queues.count
        if before > 1 {
            queues.remove(stage: entry.stage, live: live)
            bySource[entry.source] = queues
        }
        sourceCount(of: entry.source, changedFrom: before, to: before - 1)
    }

    /// Two lazily pruned FIFO queues, one per stage.
    @usableFromInline
    struct Queues {
        @usableFromInline var awaitingHello = LazyFIFO<ID>()
        @usableFromInline var helloAnswered = LazyFIFO<ID>()
        /// Live entries in both queues.
        @usableFromInline var count = 0
        /// Entries in both queues, live and stale.
        @inlinable var storedCount: Int { awaitingHello.storedCount + helloAnswered.storedCount }

        @inlinable init() {}

        @inlinable
        mutating func append(_ id: ID, stage: Stage) {
            count += 1
            switch stage {
            case .awaitingHello: awaitingHello.append(id)
            case .helloAnswered: helloAnswered.append(id)
            }
        }

        /// Moves `id` (live, awaiting its hello) to the answered queue.
        @inlinable
        mutating func promote(_ id: ID) {
            awaitingHello.noteStale()
            helloAnswered.append(id)
        }

        /// One live entry of `stage` left; prunes and compacts as needed.
        @inlinable
        mutating func remove(stage: Stage, live: [ID: (source: Source, stage: Stage)]) {
            count -= 1
            switch stage {
            case .awaitingHello: awaitingHello.noteStale()
            case .helloAnswered: helloAnswered.noteStale()
            }
            awaitingHello.compactIfMostlyStale { live[$0]?.stage == .awaitingHello }
            helloAnswered.compactIfMostlyStale { live[$0]?.stage == .helloAnswered }
        }

        /// The oldest live connection, those awaiting a hello first.
        @inlinable
        mutating func first(in live: [ID: (source: Source, stage: Stage)]) -> ID? {
            if let id = awaitingHello.first(where: { live[$0]?.stage == .awaitingHello }) { return id }
            return helloAnswered.first(where: { live[$0]?.stage == .helloAnswered })
        }
    }
}

/// A FIFO whose removals are lazy: entries are marked stale by count, skipped at the front and
/// dropped in a compaction once they outnumber the live ones (amortized O(1) per operation).
@usableFromInline
struct LazyFIFO<Element> {
    @usableFromInline var items: [Element] = []
    @usableFromInline var head = 0
    @usableFromInline var stale = 0

    @inlinable init() {}

    /// Entries held, live and stale.
    @inlinable var storedCount: Int { items.count - head }

    @inlinable mutating func append(_ element: Element) { items.append(element) }

    /// One entry somewhere in the queue is no longer live.
    @inlinable mutating func noteStale() { stale += 1 }

    /// The first live entry (`isLive` tells), dropping stale ones in front of it.
    @inlinable mutating func first(where isLive: (Element) -> Bool) -> Element? {
        while head < items.count {
            if isLive(items[head]) { return items[head] }
            head += 1
            stale = max(0, stale - 1)
        }
        items.removeAll(keepingCapacity: true)
        head = 0
        stale = 0
        return nil
    }

    /// Rebuilds the queue from its live entries when stale ones are more than half of it.
    @inlinable mutating func compactIfMostlyStale(_ isLive: (Element) -> Bool) {
        guard stale > 16, stale * 2 > storedCount else { return }
        items = items[head...].filter(isLive)
        head = 0
        stale = 0
    }
}
