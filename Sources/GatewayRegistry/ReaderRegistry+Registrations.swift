import GatewayDomain

extension ReaderRegistry {
    /// An unregistered reader's link shows `code` until `expires`; the code it showed
    /// before (if any) is withdrawn.
    public mutating func registrationCodeIssued(_ code: String, replacing previous: String?, link: LinkID, serial: String, expires: ContinuousClock.Instant) {
        if let previous { registrations[previous] = nil }
        registrations[code] = PendingRegistration(link: link, serial: serial, expires: expires)
    }

    /// Whether the code ran out at `now` (the link then shows a fresh one).
    public func registrationExpired(_ code: String, now: ContinuousClock.Instant) -> Bool {
        registrations[code].map { $0.expires <= now } ?? false
    }

    /// The link showing `code` stopped waiting (registered, or ended).
    public mutating func registrationWithdrawn(_ code: String) {
        registrations[code] = nil
    }

    /// An admin registered `code`: the link showing it, taken (a code is used once).
    public mutating func registrationTaken(_ code: String) -> PendingRegistration? {
        registrations.removeValue(forKey: code)
    }
}
