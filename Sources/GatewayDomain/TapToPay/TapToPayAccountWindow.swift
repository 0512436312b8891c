/// The Tap to Pay account rule: one device serves at most ``limit`` unique accounts within a
/// rolling ``window`` (Stripe: 3 accounts per iPhone per 24 hours; the 4th connect fails with
/// `TAP_TO_PAY_READER_MERCHANT_BLOCKED`).
///
/// An account *uses* the device at each admitted connect; the accounts in the window are those
/// whose last use is younger than the window. An account already in the window is always
/// admitted again (and its use refreshed). This is the rule as a value: PostgreSQL decides it
/// across replicas in one statement (`tap_to_pay_admit`, migration 0007), and a parity test
/// runs both over the same sequences.
public struct TapToPayAccountWindow: Sendable, Hashable {
    /// The verdict for one connect.
    public enum Admission: Sendable, Hashable {
        /// The account may use the device; `accounts` counts the window's accounts with it.
        case admitted(accounts: Int)
        /// The window is full of other accounts; the device frees up at `retryAtMs`, when the
        /// oldest of their last uses leaves the window.
        case blocked(accounts: Int, retryAtMs: Int64)
    }

    public var limit: Int
    public var windowMs: Int64
    /// Last use per account, in milliseconds of whatever clock the caller uses.
    public private(set) var lastUseMs: [String: Int64] = [:]

    /// 3 accounts in a rolling 24 hours.
    public init(limit: Int = 3, windowMs: Int64 = 24 * 3600 * 1000) {
        self.limit = limit
        self.windowMs = windowMs
    }

    /// Decides `account`'s connect at `nowMs`, recording the use when admitted.
    public mutating func admit(_ account: String, nowMs: Int64) -> Admission {
        let inWindow = lastUseMs.filter { $0.value > nowMs - windowMs }
        if inWindow[account] != nil || inWindow.count < limit {
            lastUseMs[account] = max(lastUseMs[account] ?? nowMs, nowMs)
            return .admitted(accounts: inWindow[account] != nil ? inWindow.count : inWindow.count + 1)
        }
        let oldest = inWindow.values.min() ?? nowMs
        return .blocked(accounts: inWindow.count, retryAtMs: oldest + windowMs)
    }
}
