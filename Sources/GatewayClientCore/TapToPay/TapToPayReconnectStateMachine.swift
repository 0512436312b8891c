import GatewayChannel
import GatewayWire

/// Auto-reconnect of the phone's Tap to Pay reader (Stripe's `onReaderReconnectStarted`,
/// `…Succeeded`, `…Failed` then `didDisconnect`), as a value: events in, the events to
/// report out (plain values: no protobuf message is built here, under the client's lock).
///
/// ```
///            connected(autoReconnect)             linkLost (auto)
///   idle ───────────────────────────► connected ─────────────────► reconnecting
///    ▲                                  ▲   │ linkLost (manual): nothing;   │  │
///    │                                  │   │ the gateway's didDisconnect   │  │
///    │                reconnectSucceeded│   ▼ passes through                │  │
///    │                                  └────────────────────────────────────┘  │
///    └────────────── reconnectFailed / cancelled: reconnectFailed, then ────────┘
///                    disconnected (the gateway's, held meanwhile, or made here)
/// ```
///
/// The link is lost when the app goes to the background (the phone says so on the link, and
/// that it reconnects: the gateway keeps the owner) or when the phone's connection to the
/// gateway drops (the gateway keeps the owner through its offline bound). A reconnect
/// attaches the reader's link again with the same credential once the app is in the
/// foreground and the session is back: the session still owns the reader at the same
/// generation, nothing is connected anew.
///
/// While a reconnect runs, the gateway's `disconnected` for the reader is held back: it is
/// reported only if the reconnect fails, after `reconnectFailed`. One that arrives after the
/// reconnect succeeded (events and answers travel on different streams) names an older
/// generation than the reconnect's, and is dropped.
struct TapToPayReconnectStateMachine: Sendable {
    enum State: Sendable, Equatable {
        /// No Tap to Pay reader connected.
        case idle
        /// Connected at ownership `generation`; `autoReconnect` from the connection configuration.
        case connected(readerID: String, generation: UInt64, autoReconnect: Bool)
        /// The link was lost and a reconnect runs for the ownership at `generation`; `held` is
        /// the gateway's disconnect, if it came.
        case reconnecting(readerID: String, generation: UInt64, held: DisconnectInfo?)
    }

    /// What a lost link starts.
    enum OnLinkLost: Sendable, Equatable {
        /// Report `reconnectStarted` (with `reason`) and reconnect.
        case startReconnect(readerID: String, reason: ReaderGatewayV1.MobileDisconnectReason)
        /// Nothing: no reader, or the app reconnects by itself (the gateway's disconnect comes).
        case none
    }

    /// What to do with the gateway's `disconnected`.
    enum OnGatewayDisconnected: Sendable, Equatable {
        /// Report it now.
        case deliver
        /// Keep it back until the reconnect ends.
        case hold
        /// Drop it: it ends an ownership older than the reconnect's (it overtook nothing).
        case drop
    }

    private(set) var state = State.idle
    /// The ownership a failed reconnect already reported as lost: the gateway's own report of
    /// it, arriving later, is not reported twice.
    private(set) var reported: (readerID: String, generation: UInt64)?

    /// The session connected the reader (first time, or a reconnect that succeeded).
    mutating func connected(readerID: String, generation: UInt64, autoReconnect: Bool) {
        state = .connected(readerID: readerID, generation: generation, autoReconnect: autoReconnect)
    }

    /// The reader's link ended unexpectedly, for `reason` (`appInBackground`; `unknown` when the
    /// phone's connection to the gateway dropped).
    mutating func linkLost(_ reason: ReaderGatewayV1.MobileDisconnectReason) -> OnLinkLost {
        guard case .connected(let reader, let generation, let autoReconnect) = state else { return .none }
        guard autoReconnect else {
            state = .idle
            return .none
        }
        state = .reconnecting(readerID: reader, generation: generation, held: nil)
        return .startReconnect(readerID: reader, reason: reason)
    }

    /// The gateway reported that the session lost `info.readerID`.
    mutating func gatewayDisconnected(_ info: DisconnectInfo) -> OnGatewayDisconnected {
        switch state {
        case .reconnecting(let reader, let generation, let held) where reader == info.readerID:
            state = .reconnecting(readerID: reader, generation: generation, held: held ?? info)
            return .hold
        case .connected(let reader, let generation, _) where reader == info.readerID:
            // The loss that started a reconnect, reaching the client after it succeeded.
            if info.generation != 0, info.generation < generation { return .drop }
            state = .idle
            return .deliver
        default:
            if let reported, reported.readerID == info.readerID, info.generation <= reported.generation { return .drop }
            return .deliver
        }
    }

    /// Whether a reconnect runs, and whether the gateway released the reader meanwhile (its
    /// `disconnected` is held: the reconnect cannot keep what is gone).
    var reconnecting: (readerID: String, released: Bool)? {
        guard case .reconnecting(let reader, _, let held) = state else { return nil }
        return (reader, held != nil)
    }

    /// The reconnect connected the reader again: report `reconnectSucceeded` (the held
    /// disconnect is dropped: the session has its reader).
    mutating func reconnectSucceeded(generation: UInt64, autoReconnect: Bool) -> [TerminalEvent] {
        guard case .reconnecting(let reader, _, _) = state else { return [] }
        state = .connected(readerID: reader, generation: generation, autoReconnect: autoReconnect)
        return [.reconnectSucceeded(readerID: reader)]
    }

    /// The reconnect failed or was cancelled: report `reconnectFailed`, then `disconnected`.
    mutating func reconnectFailed(_ error: RPCError) -> [TerminalEvent] {
        guard case .reconnecting(let reader, let generation, let held) = state else { return [] }
        state = .idle
        reported = (reader, generation)
        let made = DisconnectInfo(readerID: reader, reason: .readerLost, generation: generation, message: "the Tap to Pay reader did not reconnect: \(error.message)")
        return [.reconnectFailed(readerID: reader, TerminalError(error)), .disconnected(held ?? made)]
    }

    /// The phone's connection dropped with auto-reconnect off: the gateway kept the owner (it
    /// cannot tell a drop from a reconnect), and the client let the reader go once the session
    /// was back. Reports `disconnected` (made here), once: the gateway's own report of that
    /// ownership's end, if it comes, is dropped.
    mutating func lostWithoutReconnect(readerID: String, generation: UInt64) -> TerminalEvent {
        state = .idle
        reported = (readerID, generation)
        return .disconnected(DisconnectInfo(
            readerID: readerID, reason: .readerLost, generation: generation,
            message: "the connection to the gateway dropped and auto-reconnect is off: the Tap to Pay reader was let go; connect it again"
        ))
    }

    /// The session let the reader go (disconnect, close).
    mutating func released() {
        state = .idle
    }
}
