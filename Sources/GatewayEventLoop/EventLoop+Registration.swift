import CGatewayLinux

/// Something registered with an event loop's epoll set: a socket, a pipe, an eventfd, a
/// libpq connection's socket.
public protocol EventLoopSelectable: AnyObject {
    /// Called on the loop thread with the epoll event bits (`RG_EPOLLIN`, …) for its descriptor.
    func handleEvents(_ events: UInt32)
}

/// One descriptor's registration with a loop: the descriptor and the token that tells this
/// registration from an earlier one of the same (reused) descriptor number.
public struct EventLoopRegistration: Sendable, Hashable {
    /// The registered descriptor.
    public let fd: Int32
    let token: UInt32

    var epollData: UInt64 { UInt64(token) << 32 | UInt64(UInt32(bitPattern: fd)) }
}

/// Readiness registration.
///
/// Registering happens on the loop's thread (the table of handlers is the loop's). Changing the
/// interest of a registration and removing it may also happen on another thread that owns the
/// descriptor (the store's callers, which send on a connection themselves): both are one
/// `epoll_ctl`, which the kernel serializes, and a removal's table entry is dropped on the loop
/// thread afterwards, only if the slot still holds that registration.
extension EventLoop {
    /// Adds `fd` to the epoll set with `events`; `selectable` hears of its readiness on this
    /// loop's thread. Returns nil (errno set) if epoll refused it. Loop thread only.
    @discardableResult
    public func register(fd: Int32, events: UInt32, _ selectable: EventLoopSelectable) -> EventLoopRegistration? {
        assert(inEventLoop, "EventLoop.register must run on the loop's thread")
        let slot = Int(fd)
        guard slot >= 0 else { return nil }
        if slot >= selectables.count {
            let newCount = max(slot + 1, selectables.count * 2, 64)
            selectables.append(contentsOf: repeatElement(nil, count: newCount - selectables.count))
            tokens.append(contentsOf: repeatElement(0, count: newCount - tokens.count))
        }
        nextToken &+= 1
        if nextToken == 0 { nextToken = 1 }
        let registration = EventLoopRegistration(fd: fd, token: nextToken)
        guard rg_epoll_ctl(epollFD, RG_EPOLL_CTL_ADD, fd, events, registration.epollData) == 0 else { return nil }
        selectables[slot] = selectable
        tokens[slot] = nextToken
        return registration
    }

    /// Changes the interest set of the descriptor registered as `fd`. Loop thread only.
    public func modify(fd: Int32, events: UInt32) {
        assert(inEventLoop, "EventLoop.modify(fd:events:) must run on the loop's thread")
        let slot = Int(fd)
        guard slot >= 0, slot < tokens.count, tokens[slot] != 0 else { return }
        _ = modify(EventLoopRegistration(fd: fd, token: tokens[slot]), events: events)
    }

    /// Forgets `fd` (call before closing it). Loop thread only.
    public func deregister(fd: Int32) {
        assert(inEventLoop, "EventLoop.deregister(fd:) must run on the loop's thread")
        let slot = Int(fd)
        guard slot >= 0, slot < selectables.count else { return }
        _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_DEL, fd, 0, 0)
        selectables[slot] = nil
        tokens[slot] = 0
    }

    /// Changes the interest set of `registration`; false (errno set) if epoll no longer knows
    /// the descriptor (it was closed). Callable from any thread that owns the descriptor.
    @discardableResult
    public func modify(_ registration: EventLoopRegistration, events: UInt32) -> Bool {
        rg_epoll_ctl(epollFD, RG_EPOLL_CTL_MOD, registration.fd, events, registration.epollData) == 0
    }

    /// Removes `registration` (call before closing its descriptor): from the epoll set at once,
    /// from the loop's table at once on the loop thread, else as soon as the loop runs a task.
    /// Callable from any thread that owns the descriptor.
    public func deregister(_ registration: EventLoopRegistration) {
        _ = rg_epoll_ctl(epollFD, RG_EPOLL_CTL_DEL, registration.fd, 0, 0)
        if inEventLoop {
            forget(registration)
        } else {
            execute { [self] in forget(registration) }
        }
    }

    private func forget(_ registration: EventLoopRegistration) {
        let slot = Int(registration.fd)
        guard slot >= 0, slot < tokens.count, tokens[slot] == registration.token else { return }
        selectables[slot] = nil
        tokens[slot] = 0
    }

    /// Every registered handler, for shutdown sweeps. Loop thread only.
    public func registeredObjects() -> [EventLoopSelectable] {
        assert(inEventLoop)
        return selectables.compactMap { $0 }
    }
}
