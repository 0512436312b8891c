import GatewayCore
import Testing

@Suite("Latch")
struct LatchTests {
    @Test("a latch set before the wait answers at once")
    func setBefore() async {
        let latch = Latch()
        latch.set()
        #expect(await latch.wait(atMost: .seconds(3600)))
    }

    @Test("a wait whose limit passes answers false; the latch is still unset")
    func limitPasses() async {
        let latch = Latch()
        #expect(await latch.wait(atMost: .milliseconds(1)) == false)
        #expect(latch.isSet == false)
    }

    @Test("setting the latch wakes every waiter, whatever their limit")
    func setWakesWaiters() async {
        let latch = Latch()
        async let first = latch.wait(atMost: .seconds(3600))
        async let second = latch.wait(atMost: .seconds(3600))
        latch.set()
        latch.set()
        #expect(await first)
        #expect(await second)
    }

    @Test("a cancelled waiter stops waiting")
    func cancelled() async {
        let latch = Latch()
        let waiter = Task { await latch.wait(atMost: .seconds(3600)) }
        waiter.cancel()
        #expect(await waiter.value == false)
    }
}
