/// A command a session sends to the reader it owns.
///
/// Only ``collectPaymentMethod`` and ``confirmPaymentIntent`` put the reader "in use"
/// (mid-transaction) for the failIfInUse rule; a cart on the display does not.
public enum ReaderCommand: String, Hashable, Sendable, CaseIterable {
    case collectPaymentMethod = "collect_payment_method"
    case confirmPaymentIntent = "confirm_payment_intent"
    case setReaderDisplay = "set_reader_display"
    case clearReaderDisplay = "clear_reader_display"

    /// Whether a started, unfinished command of this kind makes the reader in use.
    public var marksReaderInUse: Bool {
        switch self {
        case .collectPaymentMethod, .confirmPaymentIntent: true
        case .setReaderDisplay, .clearReaderDisplay: false
        }
    }
}

/// A transaction command in progress on a reader and the session that started it.
public struct CommandInProgress: Hashable, Sendable {
    public var command: ReaderCommand
    public var session: SessionID

    public init(command: ReaderCommand, session: SessionID) {
        self.command = command
        self.session = session
    }
}
