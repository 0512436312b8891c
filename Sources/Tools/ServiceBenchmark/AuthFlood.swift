import Foundation
import GatewayClient
import GatewayTransport
import GatewayWire
import GatewayWireClients
import Synchronization

/// Auth-flood mode: a guessing flood of wrong secret keys from several loopback addresses
/// (`127.0.0.2`, `127.0.0.3`, …: Linux's loopback answers the whole 127/8) while one admin
/// with the correct key calls `ListReaders` in a closed loop from `127.0.0.1`. Prints one JSON
/// line: the admin's p50/p99 before and during the flood, the flood's answers (checked and
/// refused as wrong, limited, other) and the process's CPU in each phase.
enum AuthFlood {
    /// The flood's answers, counted by the guessers.
    final class Tally: Sendable {
        let wrong = Atomic<Int>(0)
        let limited = Atomic<Int>(0)
        let other = Atomic<Int>(0)
        let sent = Atomic<Int>(0)
        let connected = Atomic<Int>(0)
        /// Set when the flood is over: guessers start no more calls.
        let stop = Atomic<Bool>(false)
        var answered: Int { wrong.load(ordering: .relaxed) + limited.load(ordering: .relaxed) + other.load(ordering: .relaxed) }
    }

    /// One address's guesser: `FleetAdmin/ListReaders` with a new random wrong key per call,
    /// `inFlight` calls at a time, until the flood's `total` calls are sent (or, in a
    /// sustained flood (`total` nil), until told to stop).
    ///
    /// `@unchecked Sendable`: every `var` is touched only on the connection's event loop.
    final class Guesser: ConnectionHandler, @unchecked Sendable {
        let tally: Tally
        let total: Int?
        let inFlight: Int
        /// Paced: one call every `interval` (nil: `inFlight` calls in a closed loop).
        let interval: Duration?
        private var frames = FrameConnection(configuration: ConnectionConfiguration(role: .client), now: WireTime.now)
        private var events: [ConnectionEvent] = []
        private var outbound: [UInt8] = []
        private let request = ReaderGatewayV1.ListReadersRequest().serializedBytes()

        init(tally: Tally, total: Int?, inFlight: Int, interval: Duration?) {
            self.tally = tally
            self.total = total
            self.inFlight = inFlight
            self.interval = interval
        }

        func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
            tally.connected.add(1, ordering: .relaxed)
            if let interval {
                tick(connection, every: interval, at: ContinuousClock.now)
                return
            }
            for _ in 0..<inFlight { next() }
            write(connection)
        }

        /// One paced call, then the next one `interval` after this one was due.
        private func tick(_ connection: TLSConnection, every interval: Duration, at due: ContinuousClock.Instant) {
            guard !tally.stop.load(ordering: .relaxed), tally.sent.load(ordering: .relaxed) < total ?? .max else { return }
            next()
            write(connection)
            let following = due + interval
            _ = connection.eventLoop.schedule(after: max(.zero, following - ContinuousClock.now)) { [self] in
                tick(connection, every: interval, at: following)
            }
        }

        private func next() {
            guard !tally.stop.load(ordering: .relaxed) else { return }
            guard tally.sent.add(1, ordering: .relaxed).newValue <= total ?? .max else { return }
            var entry = ReaderGatewayV1.MetadataEntry()
            entry.key = "authorization"
            entry.value = Array("Bearer sk_guess\(UInt64.random(in: 0...UInt64.max))".utf8)
            guard let id = try? frames.startCall(method: ReaderGatewayV1.FleetAdmin.listReaders.path, metadata: [entry], now: WireTime.now) else { return }
            _ = try? frames.send(serialized: request, on: id)
            try? frames.halfClose(id)
        }

        func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
            events.removeAll(keepingCapacity: true)
            frames.receive(bytes, now: WireTime.now, into: &events)
            for event in events {
                switch event {
                case .message(let id, let payload):
                    frames.messageConsumed(id, byteCount: payload.count)
                case .callEnded(_, let end):
                    switch end.status?.reason {
                    case .secretKeyInvalid?: tally.wrong.add(1, ordering: .relaxed)
                    case .authenticationRateLimited?: tally.limited.add(1, ordering: .relaxed)
                    default: tally.other.add(1, ordering: .relaxed)
                    }
                    if interval == nil { next() }
                default:
                    break
                }
            }
            if frames.hasOutbound { write(connection) }
        }

        private func write(_ connection: TLSConnection) {
            frames.takeOutbound(into: &outbound)
            connection.write(outbound)
        }

        func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {}
    }

    /// The admin's `ListReaders` latencies (seconds) while `keepGoing` says so, at least `minimum` calls.
    static func adminLatencies(_ admin: AdminClient, minimum: Int, while keepGoing: () -> Bool) async throws -> [Double] {
        var latencies: [Double] = []
        while latencies.count < minimum || keepGoing() {
            let start = ContinuousClock.now
            _ = try await admin.listReaders()
            latencies.append((ContinuousClock.now - start).seconds)
        }
        return latencies
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    static func run(
        admin: AdminClient, port: Int, caPath: String, clients: EventLoopGroup, addresses: Int, guesses: Int, inFlight: Int, baseline: Duration,
        sustained: Duration, perSecond: Int
    ) async throws -> String {
        // Before: the admin alone for `baseline`.
        let baselineEnd = ContinuousClock.now + baseline
        let cpuBefore = processCPUSeconds()
        let quiet = try await adminLatencies(admin, minimum: 50) { ContinuousClock.now < baselineEnd }
        let quietCPU = processCPUSeconds() - cpuBefore

        // During: the flood from `addresses` loopback addresses, the admin calling meanwhile.
        let tally = Tally()
        let context = try TLSContext(client: TLSClientConfiguration(trustedCAPath: caPath))
        let floodStart = ContinuousClock.now
        let cpuStart = processCPUSeconds()
        for index in 0..<addresses {
            TLSClient.connect(
                host: "127.0.0.1", port: port, serverName: "localhost", localHost: "127.0.0.\(index + 2)", context: context, on: clients.next()
            ) { _ in
                Guesser(
                    tally: tally, total: sustained > .zero ? nil : guesses, inFlight: inFlight,
                    interval: perSecond > 0 ? .nanoseconds(Int64(1e9 * Double(addresses) / Double(perSecond))) : nil
                )
            }
        }
        let deadline = ContinuousClock.now + .seconds(300)
        let sustainedEnd = floodStart + sustained
        // Only calls that started while the flood was still being answered (and, sustained, for its time).
        let during = try await adminLatencies(admin, minimum: 1) {
            (tally.answered < guesses || ContinuousClock.now < sustainedEnd) && ContinuousClock.now < deadline
        }
        tally.stop.store(true, ordering: .relaxed)
        let floodSeconds = (ContinuousClock.now - floodStart).seconds
        let floodCPU = processCPUSeconds() - cpuStart
        guard tally.answered >= guesses else { fail("the flood did not finish: \(tally.answered) of \(guesses) answered, \(tally.connected.load(ordering: .relaxed)) guessers connected") }

        func ms(_ seconds: Double) -> String { String(format: "%.2f", seconds * 1000) }
        let shape = perSecond > 0 ? "\"guesses_per_second\": \(perSecond)" : "\"in_flight_per_address\": \(inFlight)"
        return "{\"label\": \"auth flood\(sustained > .zero ? " sustained" : "")\", \"addresses\": \(addresses), \"guesses_answered\": \(tally.answered), \(shape), "
            + "\"guesses_checked_wrong\": \(tally.wrong.load(ordering: .relaxed)), \"guesses_limited\": \(tally.limited.load(ordering: .relaxed)), \"guesses_other\": \(tally.other.load(ordering: .relaxed)), "
            + "\"flood_seconds\": \(String(format: "%.3f", floodSeconds)), "
            + "\"admin_calls_before\": \(quiet.count), \"admin_p50_ms_before\": \(ms(percentile(quiet, 0.5))), \"admin_p99_ms_before\": \(ms(percentile(quiet, 0.99))), "
            + "\"admin_calls_during\": \(during.count), \"admin_p50_ms_during\": \(ms(percentile(during, 0.5))), \"admin_p99_ms_during\": \(ms(percentile(during, 0.99))), "
            + "\"process_cpu_percent_before\": \(String(format: "%.1f", quietCPU / baseline.seconds * 100)), "
            + "\"process_cpu_percent_during\": \(String(format: "%.1f", floodCPU / floodSeconds * 100)), "
            + "\"process_cpu_seconds_flood\": \(String(format: "%.3f", floodCPU))}\n"
    }
}
