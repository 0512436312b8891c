import GatewayCore
import GatewayTestKit
import Testing

/// The admission policy as a pure value: which connections a new one pushes out.
@Suite("ConnectionAdmission")
struct ConnectionAdmissionTests {
    typealias Admission = ConnectionAdmission<Int, String>

    @Test("under both caps nothing is evicted")
    func underCaps() {
        var admission = Admission(maxInFlight: 4, maxPerSource: 2)
        #expect(admission.admit(1, from: "a") == [])
        #expect(admission.admit(2, from: "b") == [])
        #expect(admission.admit(3, from: "a") == [])
        #expect(admission.inFlight == 3)
        #expect(admission.inFlight(from: "a") == 2)
    }

    @Test("at the listener's cap the oldest connection is evicted, never the newcomer")
    func globalCapEvictsOldest() {
        var admission = Admission(maxInFlight: 3, maxPerSource: 3)
        _ = admission.admit(1, from: "a")
        _ = admission.admit(2, from: "b")
        _ = admission.admit(3, from: "c")
        #expect(admission.admit(4, from: "d") == [1])
        #expect(admission.admit(5, from: "e") == [2])
        #expect(admission.contains(4) && admission.contains(5) && !admission.contains(1))
        #expect(admission.inFlight == 3)
    }

    @Test("at a source's cap that source's own oldest is evicted; other sources are untouched")
    func perSourceCapEvictsOwnOldest() {
        var admission = Admission(maxInFlight: 100, maxPerSource: 2)
        _ = admission.admit(1, from: "victim")
        _ = admission.admit(2, from: "flood")
        _ = admission.admit(3, from: "flood")
        #expect(admission.admit(4, from: "flood") == [2])
        #expect(admission.admit(5, from: "flood") == [3])
        #expect(admission.contains(1))
        #expect(admission.inFlight(from: "flood") == 2)
        #expect(admission.inFlight(from: "victim") == 1)
    }

    @Test("a connection whose ClientHello was answered goes after every one still waiting for it")
    func answeredHelloIsEvictedLast() {
        var admission = Admission(maxInFlight: 3, maxPerSource: 3)
        _ = admission.admit(1, from: "a")   // a real client, oldest
        _ = admission.admit(2, from: "b")   // silent
        _ = admission.admit(3, from: "c")   // silent
        admission.helloAnswered(1)
        #expect(admission.admit(4, from: "d") == [2])
        #expect(admission.admit(5, from: "e") == [3])
        #expect(admission.admit(6, from: "f") == [4])
        // Only answered connections and the newest silent ones are left: now the oldest answered goes.
        admission.helloAnswered(5)
        admission.helloAnswered(6)
        #expect(admission.admit(7, from: "g") == [1])
    }

    @Test("finished handshakes free their places, and evicting skips them")
    func finishedFreesPlaces() {
        var admission = Admission(maxInFlight: 2, maxPerSource: 2)
        _ = admission.admit(1, from: "a")
        _ = admission.admit(2, from: "a")
        admission.finished(1)
        admission.finished(99)   // unknown: ignored
        #expect(admission.inFlight == 1)
        #expect(admission.admit(3, from: "a") == [])
        #expect(admission.admit(4, from: "a") == [2])
        admission.finished(3)
        admission.finished(4)
        #expect(admission.inFlight == 0)
        #expect(admission.inFlight(from: "a") == 0)
    }

    @Test("a newcomer evicts at most one: its source's oldest at the source cap (which frees a place under the listener's), else the heaviest source's at the listener cap")
    func bothCaps() {
        var admission = Admission(maxInFlight: 3, maxPerSource: 2)
        _ = admission.admit(1, from: "x")
        _ = admission.admit(2, from: "y")
        _ = admission.admit(3, from: "y")
        // y is at its cap (evict 2), which also leaves room under the listener's cap.
        #expect(admission.admit(4, from: "y") == [2])
        // z is new and the listener is full: y has the most in flight, so its oldest (3) goes,
        // not x's older but single connection.
        #expect(admission.admit(5, from: "z") == [3])
        #expect(admission.inFlight == 3)
        #expect(admission.contains(1))
    }

    @Test("at the listener's cap a source with one connection is left alone while another has more, however fast they come")
    func singleConnectionSourcesAreLeftAlone() {
        var admission = Admission(maxInFlight: 8, maxPerSource: 8)
        _ = admission.admit(1, from: "probe")
        // Ten thousand newcomers from four flooding sources, round robin.
        var next = 2
        for round in 0..<10_000 {
            let evicted = admission.admit(next, from: "flood\(round % 4)")
            #expect(!evicted.contains(1), "the probe was evicted at round \(round)")
            next += 1
        }
        #expect(admission.contains(1))
        #expect(admission.inFlight == 8)
        // Every flooding source keeps a fair share of the rest.
        #expect((0..<4).allSatisfy { admission.inFlight(from: "flood\($0)") >= 1 })
    }

    @Test("when every source has one connection in flight the oldest overall goes")
    func allSingleFallsBackToOldest() {
        var admission = Admission(maxInFlight: 3, maxPerSource: 3)
        _ = admission.admit(1, from: "a")
        _ = admission.admit(2, from: "b")
        _ = admission.admit(3, from: "c")
        #expect(admission.admit(4, from: "d") == [1])
    }

    /// Seconds of CPU in a debug build: run on a thread of its own, not on the cooperative
    /// pool's two threads that the rest of the suite's tasks share.
    @Test("long churn keeps the queues bounded by the live connections")
    func churnStaysBounded() async {
        let (inFlight, live, storedEntries, unknownVictims) = await onOwnThread("admission-churn") { () -> (Int, Int, Int, Int) in
            var admission = Admission(maxInFlight: 64, maxPerSource: 8)
            var random = SplitMix64(seed: 7)
            var live: Set<Int> = []
            var unknownVictims = 0
            for id in 0..<200_000 {
                let source = "s\(random.next() % 20)"
                for victim in admission.admit(id, from: source) where live.remove(victim) == nil {
                    unknownVictims += 1
                }
                live.insert(id)
                if random.next() % 3 == 0, let done = live.randomElement(using: &random) {
                    live.remove(done)
                    if random.next() % 2 == 0 { admission.finished(done) } else { admission.helloAnswered(done); admission.finished(done) }
                }
                if random.next() % 5 == 0, let answered = live.randomElement(using: &random) { admission.helloAnswered(answered) }
            }
            return (admission.inFlight, live.count, admission.storedEntries, unknownVictims)
        }
        #expect(unknownVictims == 0, "connections closed to make room that were not live")
        #expect(inFlight == live)
        #expect(inFlight <= 64)
        // Each queue holds at most twice its live entries plus a small slack before it compacts:
        // two queues overall and two per source with a connection in handshake (20 sources).
        #expect(storedEntries <= 4 * 64 + 2 * 17 * 21 + 2 * 2 * 64)
    }
}
