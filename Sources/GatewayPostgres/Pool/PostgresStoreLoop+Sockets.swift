import CGatewayLinux
import GatewayEventLoop
import Glibc

/// The pool's sockets on the store thread's loop: readiness, and what each socket waits on.
/// Engine state: called with the engine lock held.
extension PostgresStoreLoop {
    /// A connection's socket is ready (the store thread).
    func socketReady(connectionID: Int, events: UInt32) {
        runEngine { handleEvent(connectionID: connectionID, events: events) }
    }

    private func handleEvent(connectionID: Int, events: UInt32) {
        guard let connection = connections[connectionID] else { return }
        switch connection.state {
        case .connecting:
            advanceConnect(connection)
        case .ready:
            if events & RG_EPOLLOUT != 0, !connection.flush() {
                connectionBroke(connection, input: connection.breakConnection(ConnectionInput()))
                return
            }
            if events & (RG_EPOLLIN | RG_EPOLLERR | RG_EPOLLHUP) != 0 {
                let input = connection.readInput()
                if input.failure != nil {
                    connectionBroke(connection, input: input)
                    return
                }
                deliver(input, from: connection)
                if connection.refusedAsReadOnly {
                    dropReadOnly(connection)
                    return
                }
            }
            updateInterest(connection)
        case .closed:
            removeConnection(connection)
        }
    }

    /// The server refused a write as read-only: it is a standby, or a primary a failover
    /// demoted. The connection goes (statements still in flight on it fail retryably), and the
    /// next one is opened by libpq's host list, which takes only a server that accepts writes.
    private func dropReadOnly(_ connection: PostgresConnection) {
        logger.warning("PostgreSQL refused a write as read-only (not the primary; a failover?); dropping the connection to find the primary", [
            "connection": connection.id, "role": "\(connection.role)",
        ])
        connectionBroke(connection, input: connection.breakConnection(
            ConnectionInput(), reason: "the server stopped being the primary (failover) before the statement finished; retry it"
        ))
    }

    /// Runs completions and hands notifications to subscribers.
    func deliver(_ input: ConnectionInput, from connection: PostgresConnection) {
        if !input.finished.isEmpty { pool.finished(input.finished.count, on: connection.id) }
        for (completion, result) in input.finished { completion(result) }
        if !input.notifications.isEmpty { deliverNotifications(input.notifications) }
    }

    /// Registers (or re-registers) the connection's socket for what it waits on.
    ///
    /// Changing the interest of a registered socket works from any thread holding the engine;
    /// registering a new socket is the store thread's (a caller leaves it a note).
    func updateInterest(_ connection: PostgresConnection) {
        let socket = connection.socket
        let wanted: UInt32
        switch connection.state {
        case .connecting: wanted = connection.connectWantsWrite ? RG_EPOLLOUT : RG_EPOLLIN
        case .ready: wanted = RG_EPOLLIN | (connection.wantsWrite ? RG_EPOLLOUT : 0)
        case .closed: return
        }
        guard socket >= 0 else { return }
        if let registration = connection.registration, registration.fd == socket {
            if wanted == connection.registeredEvents { return }
            if eventLoop.modify(registration, events: wanted) {
                connection.registeredEvents = wanted
                return
            }
            // epoll no longer knows the descriptor: libpq closed the socket and opened
            // another under the same number. Register the new one.
        }
        guard eventLoop.inEventLoop else {
            interestPending.append(connection.id)
            needsStoreThread = true
            return
        }
        unregister(connection)
        guard let registration = eventLoop.register(fd: socket, events: wanted, StoreSocketWatch(self, connectionID: connection.id.raw)) else {
            logger.error("cannot watch a PostgreSQL connection's socket with epoll; its statements wait until they time out", [
                "connection": connection.id, "error": String(cString: strerror(errno)),
            ])
            return
        }
        connection.registration = registration
        connection.registeredEvents = wanted
    }

    /// Forgets a connection and closes it; statements still in flight on it fail.
    func removeConnection(_ connection: PostgresConnection) {
        unregister(connection)
        connections[connection.id.raw] = nil
        if connection.role == .pool { pool.connectionClosed(connection.id) }
        if connection.inflightCount > 0 {
            deliver(connection.breakConnection(ConnectionInput(), reason: "the connection was closed before the statement finished; run it again"), from: connection)
        } else {
            connection.close()
        }
    }

    /// Removes the connection's socket from the loop.
    func unregister(_ connection: PostgresConnection) {
        if let registration = connection.registration {
            eventLoop.deregister(registration)
            connection.registration = nil
            connection.registeredEvents = 0
        }
    }
}

/// The loop's handler for one pool connection's socket.
///
/// Holds the store strongly: the store lives while its loop may still report readiness;
/// every registration is removed when its connection is (at the latest when the client
/// finishes closing), which ends the reference.
final class StoreSocketWatch: EventLoopSelectable {
    let store: PostgresStoreLoop
    let connectionID: Int

    init(_ store: PostgresStoreLoop, connectionID: Int) {
        self.store = store
        self.connectionID = connectionID
    }

    func handleEvents(_ events: UInt32) { store.socketReady(connectionID: connectionID, events: events) }
}
