import GatewayWire

/// When a ``TerminalClient`` may report a loss the gateway did not: the seam between the
/// client and the clock for that one timer (``TerminalClient/lostEventGrace``).
///
/// Every client an application makes uses ``clock``. The seam is internal and passed at
/// init: a test reaches it with `@testable import` and passes a wait that ends when the test
/// opens it, so that which report comes first (the gateway's kept event or the client's own)
/// is the test's choice and not a race.
struct LostEventGrace: Sendable {
    /// Returns once the client may report the loss itself.
    let wait: @Sendable () async -> Void

    /// Waits out ``TerminalClient/lostEventGrace`` on the clock.
    static let clock = LostEventGrace { try? await Task.sleep(for: TerminalClient.lostEventGrace) }
}

/// The reader a resumed session came back without, while the client waits for the gateway's
/// own `disconnected` event for it, then reports the loss itself (as the gateway would have,
/// naming the generation that ended). A value inside ``TerminalSessionStateMachine``: its
/// events are applied under the session's lock, in the same step as the rest of the session's
/// state they go with.
struct LostReaderReport {
    /// A lost reader and the generation that ended.
    typealias Loss = (reader: ReaderGatewayV1.Reader, generation: UInt64)

    /// The loss awaited from the gateway; nil when none is.
    private(set) var awaited: Loss?
    /// The task that reports ``awaited`` itself once the grace has passed (the latest one).
    private(set) var task: Task<Void, Never>?

    /// The session came back without `reader`: its loss is awaited from the gateway.
    mutating func resumedWithout(_ reader: ReaderGatewayV1.Reader, generation: UInt64) {
        awaited = (reader, generation)
    }

    /// `task` reports the awaited loss once the grace has passed.
    mutating func reportsAfterGrace(_ task: Task<Void, Never>) {
        self.task = task
    }

    /// The gateway's `disconnected` event for `readerID` arrived: its loss is heard.
    mutating func gatewayReported(readerID: String) {
        if awaited?.reader.id == readerID { awaited = nil }
    }

    /// The grace for `readerID` has passed: the loss the client reports itself, or nil when
    /// the gateway's event came first, another reader's loss is awaited now, or the session
    /// is closed. Nothing is awaited afterwards.
    mutating func graceEnded(readerID: String, sessionClosed: Bool) -> Loss? {
        defer { awaited = nil }
        return sessionClosed || awaited?.reader.id != readerID ? nil : awaited
    }
}
