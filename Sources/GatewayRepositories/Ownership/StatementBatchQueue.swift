import Synchronization

/// Work from concurrent callers gathered into batches, one statement each: at most
/// `maximumInFlight` batches run at once, items that arrive meanwhile leave together in the
/// next one (at most `maximumBatch`), and a lone item goes at once when a slot is free (no
/// waiting when it is quiet). With `distinctBy`, a batch holds at most one item per key: an item
/// whose key is already in the batch waits, in its place, for a later one (so items of one key
/// keep their order). Shared by ``OwnershipClaimBatcher``, ``OwnershipAttachBatcher`` and the
/// event and lookup batchers.
final class StatementBatchQueue<Item: Sendable>: Sendable {
    private struct State {
        var pending: [Item] = []
        var inFlight = 0
    }

    let maximumBatch: Int
    let maximumInFlight: Int
    private let distinctBy: (@Sendable (Item) -> String)?
    private let state = Mutex(State())

    init(maximumBatch: Int, maximumInFlight: Int, distinctBy: (@Sendable (Item) -> String)? = nil) {
        self.maximumBatch = max(1, maximumBatch)
        self.maximumInFlight = max(1, maximumInFlight)
        self.distinctBy = distinctBy
    }

    /// Items waiting for a batch (for tests: a batch forms behind a running one).
    var waiting: Int { state.withLock { $0.pending.count } }

    /// Queues `item`. When a slot is free, a task sends batches with `send` until nothing is
    /// waiting; `send` must answer every item of its batch.
    func enqueue(_ item: Item, send: @escaping @Sendable ([Item]) async -> Void) {
        sendNextBatch(after: { $0.pending.append(item) }, send: send)
    }

    /// Reserves a slot for one item that its caller sends itself, on its own task, when a slot
    /// is free and nothing waits (there is no batch to join): no task and no continuation for
    /// an item when it is quiet. The caller must call ``releaseAlone(send:)`` once it is sent.
    func reserveAlone() -> Bool {
        state.withLock { state in
            guard state.inFlight < maximumInFlight, state.pending.isEmpty else { return false }
            state.inFlight += 1
            return true
        }
    }

    /// Frees the slot of ``reserveAlone()``; items that arrived meanwhile leave in a batch.
    func releaseAlone(send: @escaping @Sendable ([Item]) async -> Void) {
        sendNextBatch(after: { $0.inFlight -= 1 }, send: send)
    }

    /// Applies `change` under the lock and takes the next batch there; if there is one, a task
    /// sends it (and those after it) with `send`.
    private func sendNextBatch(
        after change: (inout State) -> Void,
        send: @escaping @Sendable ([Item]) async -> Void
    ) {
        let batch: [Item]? = state.withLock { state in
            change(&state)
            return takeBatch(&state)
        }
        if let batch { Task { await run(batch, send: send) } }
    }

    /// The next batch to send, if a slot is free; reserves the slot.
    private func takeBatch(_ state: inout State) -> [Item]? {
        guard state.inFlight < maximumInFlight, !state.pending.isEmpty else { return nil }
        // In arrival order, as many as fit; with `distinctBy`, an item whose key is already in
        // the batch stays behind, in its place.
        var keys = Set<String>()
        var batch: [Item] = []
        var left: [Item] = []
        for item in state.pending {
            if batch.count < maximumBatch, distinctBy.map({ keys.insert($0(item)).inserted }) ?? true {
                batch.append(item)
            } else {
                left.append(item)
            }
        }
        state.pending = left
        state.inFlight += 1
        return batch
    }

    /// Sends batches until nothing is waiting, then frees the slot.
    private func run(_ first: [Item], send: @Sendable ([Item]) async -> Void) async {
        var batch = first
        while true {
            await send(batch)
            let next: [Item]? = state.withLock { state in
                state.inFlight -= 1
                return takeBatch(&state)
            }
            guard let next else { return }
            batch = next
        }
    }
}
