import Foundation
import GatewayService
import GatewayWire
import Synchronization
import Testing

/// `FleetAdmin.WatchFleet` on one replica, over the raw port: a watcher that does not read
/// fills its call's bounded buffer and ends alone with RESOURCE_EXHAUSTED
/// (`CONSUMER_TOO_SLOW`), while a watcher that reads keeps hearing every change.
@Suite("WatchFleet")
struct WatchFleetTests {
    static let watchFleet = ReaderGatewayV1.FleetAdmin.watchFleet.path

    @Test func aWatcherThatDoesNotReadEndsAloneWithResourceExhausted() async throws {
        let harness = try await GatewayHarness.start(maxQueuedBytesPerCall: 4 * 1024)
        do {
            let admin = try await harness.admin()
            let location = try await admin.createLocation("Slow street")
            _ = try await admin.registerSerials((1...40).map { "SLOW\(String(format: "%03d", $0))" }, prefix: "S", location: location)

            // The slow watcher grants 1 KiB per call and never more: the snapshot's page and the
            // changes after it queue at the gateway.
            let slow = try await RawFramePeer.connect(port: harness.port, caPath: harness.caPath)
            var settings = ReaderGatewayV1.Settings()
            settings.protocolVersion = 1
            settings.initialStreamWindow = 1024
            try await slow.write(RawWire.preface + RawWire.frame(0x0, settings.serializedBytes()))
            var start = ReaderGatewayV1.CallStart()
            start.method = Self.watchFleet
            start.metadata = [.bearer(harness.account.secretKey)]
            try await slow.write(RawWire.frame(0x1, stream: 1, start.serializedBytes()) + RawWire.frame(0x2, stream: 1, ReaderGatewayV1.WatchFleetRequest().serializedBytes()) + RawWire.frame(0x3, stream: 1))

            // The reading watcher, on its own connection.
            let reader = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath)
            try await reader.startCall(stream: 1, method: Self.watchFleet, ReaderGatewayV1.WatchFleetRequest(), metadata: [.bearer(harness.account.secretKey)])
            var complete = false
            while !complete {
                if case .snapshot(let page) = try await reader.nextMessage(on: 1, as: ReaderGatewayV1.WatchFleetEvent.self).event { complete = page.complete }
            }

            // Changes until the slow watcher's buffer is full: each registration is one change.
            var registered: [String] = []
            // The slow watcher's end comes when its buffer overflows, after however many
            // registrations a loaded machine takes: its socket's timeout is waited past until
            // they are all made.
            let registering = StillRegistering()
            let slowEnded = Task { () -> Result<ReaderGatewayV1.Status, RawFramePeer.End> in
                while true {
                    let frame: RawFramePeer.RawFrame
                    switch await slow.readFrame(waitingWhile: { registering.value.load(ordering: .relaxed) }) {
                    case .success(let read): frame = read
                    case .failure(let end): return .failure(end)
                    }
                    // CANCEL with the status: an END_OF_CALL would wait behind the queue the peer does not read.
                    if frame.streamID == 1, frame.type == 0x5 { return .success(try ReaderGatewayV1.Status(serializedBytes: frame.payload)) }
                    if frame.streamID == 1, frame.type == 0x4 { return .success(try ReaderGatewayV1.CallEnd(serializedBytes: frame.payload).status ?? .ok) }
                }
            }
            for batch in 0..<20 {
                let readers = try await admin.registerSerials((1...5).map { "FAST\(batch)-\($0)" }, prefix: "F\(batch)", location: location)
                registered += readers.map(\.id)
                // The reading watcher hears each of them.
                var heard = Set<String>()
                while heard.count < readers.count {
                    if case .readerChanged(let fleet) = try await reader.nextMessage(on: 1, as: ReaderGatewayV1.WatchFleetEvent.self).event {
                        heard.insert(fleet.reader?.id ?? "")
                    }
                }
                #expect(heard == Set(readers.map(\.id)))
            }
            registering.value.store(false, ordering: .relaxed)
            let slowEnd: ReaderGatewayV1.Status?
            switch try await slowEnded.value {
            case .success(let status): slowEnd = status
            case .failure(let end):
                Issue.record("the slow watcher's connection ended without its call's end: \(end)")
                slowEnd = nil
            }
            #expect(slowEnd?.code == .resourceExhausted, "\(String(describing: slowEnd))")
            #expect(slowEnd?.reason == .consumerTooSlow, "\(String(describing: slowEnd))")
            #expect(slowEnd?.message.contains("read faster") == true)
            #expect(registered.count > 40)
            // The slow watcher is forgotten; the reading one is still counted.
            #expect(harness.metrics.browser.fleetWatchers.unlabeled.value == 1)

            // The reading watcher is still served.
            let more = try await admin.registerSerials(["LAST-1"], prefix: "Last", location: location)
            var last: String?
            while last == nil {
                if case .readerChanged(let fleet) = try await reader.nextMessage(on: 1, as: ReaderGatewayV1.WatchFleetEvent.self).event { last = fleet.reader?.id }
            }
            #expect(last == more.first?.id)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}

/// Whether the test still makes the registrations a slow watcher's end waits on.
private final class StillRegistering: Sendable {
    let value = Atomic(true)
}
