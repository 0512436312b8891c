import CGatewayLinux
import Glibc

// transport-flood: holds many silent and half-hello TCP connections open against a TLS port,
// from several loopback source addresses, re-opening each one the server closes. It is the
// attacker of the flood test and of `make bench-flood`; it never completes a handshake.
//
//   transport-flood --port 7443 --silent 5000 --partial 2000 --sources 10 [--first-source 127.0.0.2]
//                   [--reopen-per-second 2000] [--seconds 120]
//
// It prints `ready connected=N` once every slot has been connected at least once (a server that
// closes some meanwhile does not hold it back), then a `stats` line
// every second, and exits (printing `done ...`) after --seconds or on SIGTERM or SIGINT.
// Loopback only: every source and the target are 127.0.0.0/8 addresses.

struct Options {
    var host = "127.0.0.1"
    var port: Int32 = 0
    var silent = 1_000
    var partial = 0
    var sources = 10
    var firstSource = "127.0.0.2"
    var reopenPerSecond = 2_000
    var seconds = 60

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        func value(_ name: String) -> String {
            guard let next = iterator.next() else { fail("\(name) needs a value") }
            return next
        }
        func number(_ name: String) -> Int {
            guard let parsed = Int(value(name)), parsed >= 0 else { fail("\(name) takes a whole number") }
            return parsed
        }
        while let argument = iterator.next() {
            switch argument {
            case "--host": host = value(argument)
            case "--port": port = Int32(number(argument))
            case "--silent": silent = number(argument)
            case "--partial": partial = number(argument)
            case "--sources": sources = max(1, number(argument))
            case "--first-source": firstSource = value(argument)
            case "--reopen-per-second": reopenPerSecond = number(argument)
            case "--seconds": seconds = number(argument)
            default: fail("unknown option \(argument); see the comment at the top of Sources/Tools/TransportFlood/main.swift")
            }
        }
        guard port > 0 else { fail("--port is required") }
        guard host.hasPrefix("127."), firstSource.hasPrefix("127.") else { fail("loopback addresses only (127.0.0.0/8)") }
    }
}

/// Writes one line to standard output at once (unbuffered: a test reads it live).
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    let bytes = Array("transport-flood: \(message)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

/// The first bytes of a TLS handshake record (type 22, version 3.1, a length), never completed.
let partialHello: [UInt8] = [0x16, 0x03, 0x01, 0x02]

/// One attacking connection slot: re-opened whenever the server closes it.
struct Slot {
    var fd: Int32 = -1
    var source: Int
    var partial: Bool
    var connected = false
    var everConnected = false
}

let options = Options(CommandLine.arguments)
signal(SIGPIPE, SIG_IGN)
let descriptorLimit = rg_raise_nofile_limit()
guard descriptorLimit < 0 || descriptorLimit > options.silent + options.partial + 16 else {
    fail("\(options.silent + options.partial) connections need more descriptors than the limit of \(descriptorLimit)")
}
var target = sockaddr_storage()
var targetLength = socklen_t(0)
guard rg_make_sockaddr(options.host, options.port, &target, &targetLength) == 0 else { fail("bad target \(options.host)") }
let baseParts = options.firstSource.split(separator: ".").compactMap { UInt32($0) }
guard baseParts.count == 4 else { fail("bad --first-source") }
let baseAddress = baseParts.reduce(UInt32(0)) { $0 << 8 | $1 }
let sourceAddresses: [sockaddr_storage] = (0..<options.sources).map { index in
    let address = baseAddress + UInt32(index)
    let text = "\(address >> 24).\(address >> 16 & 0xff).\(address >> 8 & 0xff).\(address & 0xff)"
    var storage = sockaddr_storage()
    var length = socklen_t(0)
    guard rg_make_sockaddr(text, 0, &storage, &length) == 0 else { fail("bad source \(text)") }
    return storage
}

var slots: [Slot] = (0..<(options.silent + options.partial)).map { index in
    Slot(source: index % options.sources, partial: index >= options.silent)
}
let epoll = rg_epoll_create()
guard epoll >= 0 else { fail("epoll_create failed") }
var slotOfFD: [Int32: Int] = [:]
var closedByServer = 0
var reopened = 0
var connectFailures = 0
var reopenQueue: [Int] = []
var everConnected = 0

/// Opens slot `index`: bind to its source, non-blocking connect, watch it.
@MainActor func open(_ index: Int) -> Bool {
    let fd = rg_socket_nonblocking(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    var source = sourceAddresses[slots[index].source]
    let bound = withUnsafePointer(to: &source) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    let started = withUnsafePointer(to: &target) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, targetLength) }
    }
    guard bound == 0, started == 0 || rg_errno() == EINPROGRESS else {
        close(fd)
        return false
    }
    slots[index].fd = fd
    slots[index].connected = false
    slotOfFD[fd] = index
    _ = rg_epoll_ctl(epoll, RG_EPOLL_CTL_ADD, fd, RG_EPOLLOUT | RG_EPOLLIN | RG_EPOLLRDHUP, UInt64(UInt32(bitPattern: fd)))
    return true
}

/// The server closed (or refused) slot `index`: forget the socket, queue it for re-opening.
@MainActor func lost(_ index: Int) {
    let fd = slots[index].fd
    _ = rg_epoll_ctl(epoll, RG_EPOLL_CTL_DEL, fd, 0, 0)
    _ = rg_set_linger_zero(fd)
    close(fd)
    slotOfFD[fd] = nil
    if slots[index].connected { closedByServer += 1 } else { connectFailures += 1 }
    slots[index].fd = -1
    slots[index].connected = false
    reopenQueue.append(index)
}

for index in slots.indices where !open(index) { reopenQueue.append(index) }

let start = rg_monotonic_nanoseconds()
let deadline = start + UInt64(options.seconds) * 1_000_000_000
var lastReport = start
var lastRefill = start
var reopenBudget = Double(options.reopenPerSecond)
var announcedReady = false
let events = UnsafeMutablePointer<rg_epoll_event>.allocate(capacity: 512)
let stopSignals = [SIGTERM, SIGINT]
let signalFD = stopSignals.withUnsafeBufferPointer { rg_signalfd($0.baseAddress, Int32($0.count)) }
guard signalFD >= 0 else { fail("signalfd failed") }
let signalToken = UInt64.max
_ = rg_epoll_ctl(epoll, RG_EPOLL_CTL_ADD, signalFD, RG_EPOLLIN, signalToken)
var stopRequested = false

while rg_monotonic_nanoseconds() < deadline && !stopRequested {
    let count = rg_epoll_wait(epoll, events, 512, 50)
    for i in 0..<max(0, Int(count)) {
        if events[i].data == signalToken {
            stopRequested = true
            continue
        }
        let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: events[i].data))
        guard let index = slotOfFD[fd] else { continue }
        let bits = events[i].events
        if !slots[index].connected {
            if rg_socket_error(fd) != 0 || bits & (RG_EPOLLERR | RG_EPOLLHUP) != 0 {
                lost(index)
                continue
            }
            guard bits & RG_EPOLLOUT != 0 else { continue }
            slots[index].connected = true
            if !slots[index].everConnected {
                slots[index].everConnected = true
                everConnected += 1
            }
            // Only read interest from now on: a connected socket is always writable.
            _ = rg_epoll_ctl(epoll, RG_EPOLL_CTL_MOD, fd, RG_EPOLLIN | RG_EPOLLRDHUP, UInt64(UInt32(bitPattern: fd)))
            if slots[index].partial { _ = partialHello.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
            continue
        }
        if bits & (RG_EPOLLIN | RG_EPOLLRDHUP | RG_EPOLLHUP | RG_EPOLLERR) != 0 {
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n <= 0 && !(n < 0 && (rg_errno() == EAGAIN || rg_errno() == EINTR)) { lost(index) }
        }
    }
    let now = rg_monotonic_nanoseconds()
    if options.reopenPerSecond > 0 {
        reopenBudget = min(Double(options.reopenPerSecond), reopenBudget + Double(now - lastRefill) / 1e9 * Double(options.reopenPerSecond))
        lastRefill = now
        while reopenBudget >= 1, let index = reopenQueue.first {
            reopenQueue.removeFirst()
            reopenBudget -= 1
            if open(index) { reopened += 1 } else { reopenQueue.append(index) }
        }
    }
    let open = slots.reduce(0) { $0 + ($1.connected ? 1 : 0) }
    if !announcedReady && everConnected == slots.count {
        announcedReady = true
        say("ready connected=\(everConnected) open=\(open)")
    }
    if now - lastReport >= 1_000_000_000 {
        lastReport = now
        say("stats open=\(open) closed_by_server=\(closedByServer) reopened=\(reopened) connect_failures=\(connectFailures)")
    }
}
let open = slots.reduce(0) { $0 + ($1.connected ? 1 : 0) }
say("done open=\(open) closed_by_server=\(closedByServer) reopened=\(reopened) connect_failures=\(connectFailures)")
