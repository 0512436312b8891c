import GatewayWire

/// Auto-reconnect of a Bluetooth reader after an unexpected disconnect (Stripe's
/// `didStartReconnect`, `didSucceedReconnect`, or `didFailReconnect` then `didDisconnect`),
/// as a value: what happened in, the events to report and what to do out.
///
/// ```
///            connected                   link lost, unexpected, auto-reconnect on
///   idle ─────────────► connected ──────────────────────────────────────────► reconnecting
///    ▲                   │  ▲  link lost, requested or auto off:                │  │
///    │                   │  │  didDisconnect, release the owner                 │  │
///    │◄──────────────────┘  └──────────── reconnect succeeded: didSucceedReconnect │
///    │                                                                             │
///    └──── reconnect failed or cancelled: didFailReconnect, didDisconnect, release ┘
/// ```
///
/// The gateway keeps the reader's owner while the reconnect runs (the device tells it the
/// link ends `reconnecting`); a failed or cancelled reconnect releases it.
package struct MobileReconnectStateMachine: Sendable {
    /// The states.
    package enum State: Sendable, Equatable {
        /// No reader.
        case idle
        /// Connected to the reader `serialNumber`.
        case connected(serialNumber: String, autoReconnect: Bool)
        /// The link to `serialNumber` was lost for `reason`; a reconnect runs (`cancelled` once
        /// the app asked to stop it).
        case reconnecting(serialNumber: String, reason: ReaderGatewayV1.MobileDisconnectReason, cancelled: Bool)
    }

    /// What a lost link leads to.
    package enum OnLinkLost: Sendable, Equatable {
        /// Report `events`, tell the gateway the link ends while reconnecting (the owner is
        /// kept), and reconnect.
        case reconnect(events: [MobileReaderEvent])
        /// Report `events`, tell the gateway the link ends for good (the owner is released).
        case disconnected(events: [MobileReaderEvent])
        /// No reader was connected.
        case none
    }

    /// What the end of a reconnect attempt leads to.
    package enum OnReconnectEnded: Sendable, Equatable {
        /// Report `events`; the reader is connected again.
        case reconnected(events: [MobileReaderEvent])
        /// Report `events` and release the reader's owner at the gateway.
        case failed(events: [MobileReaderEvent], reason: ReaderGatewayV1.MobileDisconnectReason)
        /// No reconnect was running.
        case none
    }

    package private(set) var state = State.idle

    package init() {}

    /// The reader `serialNumber` is connected (first time).
    package mutating func connected(serialNumber: String, autoReconnect: Bool) {
        state = .connected(serialNumber: serialNumber, autoReconnect: autoReconnect)
    }

    /// The link to the reader ended for `reason`. A requested disconnect, or any with
    /// auto-reconnect off, ends the connection; every other reason (a reboot too: the reader
    /// comes back) starts a reconnect.
    package mutating func linkLost(_ reason: ReaderGatewayV1.MobileDisconnectReason) -> OnLinkLost {
        guard case .connected(let serial, let autoReconnect) = state else { return .none }
        guard autoReconnect, reason != .disconnectRequested else {
            state = .idle
            return .disconnected(events: [.didDisconnect(serialNumber: serial, reason: DisconnectReason(mobile: reason))])
        }
        state = .reconnecting(serialNumber: serial, reason: reason, cancelled: false)
        return .reconnect(events: [.didStartReconnect(serialNumber: serial, reason: DisconnectReason(mobile: reason))])
    }

    /// The app cancelled the reconnect (Stripe's `Cancelable.cancel()`): true when one was
    /// running, and its attempt must stop (then ``reconnectFailed()`` reports the end).
    package mutating func cancelRequested() -> Bool {
        guard case .reconnecting(let serial, let reason, false) = state else { return false }
        state = .reconnecting(serialNumber: serial, reason: reason, cancelled: true)
        return true
    }

    /// The reconnect attempt connected the reader again. A reconnect the app cancelled
    /// meanwhile fails instead (the app asked to stop).
    package mutating func reconnectSucceeded() -> OnReconnectEnded {
        guard case .reconnecting(let serial, _, let cancelled) = state else { return .none }
        if cancelled { return reconnectFailed() }
        state = .connected(serialNumber: serial, autoReconnect: true)
        return .reconnected(events: [.didSucceedReconnect(serialNumber: serial)])
    }

    /// The reconnect gave up (timeout) or was cancelled.
    package mutating func reconnectFailed() -> OnReconnectEnded {
        guard case .reconnecting(let serial, let reason, _) = state else { return .none }
        state = .idle
        return .failed(events: [.didFailReconnect(serialNumber: serial), .didDisconnect(serialNumber: serial, reason: DisconnectReason(mobile: reason))], reason: reason)
    }

    /// The app disconnected the reader itself (disconnectReader): nothing to report.
    package mutating func released() {
        state = .idle
    }
}
