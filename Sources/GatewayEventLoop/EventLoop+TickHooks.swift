/// Work a layer above does once per tick of a loop, around the tick's events and tasks.
///
/// The transport keeps one per loop: it continues reads that used up their budget after the
/// events, and flushes the tick's batched writes before the loop sleeps.
public protocol EventLoopTickHook: AnyObject {
    /// After the tick's readiness handlers, before its tasks and timers.
    func afterEvents()
    /// Last in the tick, before the loop may sleep.
    func beforeSleep()
    /// Whether work is left for the next tick: the loop then polls without blocking.
    var hasWorkLeft: Bool { get }
}

/// State layers above keep per loop, and the hooks they run each tick.
extension EventLoop {
    /// The one object of type `T` kept on this loop, made by `make` on first use; when it is an
    /// ``EventLoopTickHook`` it runs every tick from then on. Loop thread only.
    public func attached<T: AnyObject>(_ type: T.Type, make: () -> T) -> T {
        assert(inEventLoop, "EventLoop.attached must run on the loop's thread")
        let key = ObjectIdentifier(type)
        if let existing = attachments[key] { return unsafeDowncast(existing, to: T.self) }
        let made = make()
        attachments[key] = made
        if let hook = made as? any EventLoopTickHook { tickHooks.append(hook) }
        return made
    }
}
