import GatewayClient
@testable import GatewayClientCore
import Testing

/// A GatewayConnection's connect turn, without I/O: one caller connects at a time, the next
/// one gets the turn when it ends, in order.
@Suite("Gateway connection's channel slot")
struct ChannelSlotTests {
    @Test("the first caller connects at once; the ones behind it wait and get the turn in order; the last one frees it")
    func connectTurns() async {
        var slot = ChannelSlot(channel: nil)
        #expect(slot.channel == nil)
        await withCheckedContinuation { (first: CheckedContinuation<Void, Never>) in
            let now = slot.connectTurnRequested(first)
            #expect(now)
            first.resume()
        }
        #expect(slot.connecting)
        var order: [Int] = []
        await withCheckedContinuation { (second: CheckedContinuation<Void, Never>) in
            let now = slot.connectTurnRequested(second)
            #expect(!now)
            // The first caller is done: the turn passes to the second, which stays connecting.
            let next = slot.connectTurnEnded()
            #expect(next != nil)
            #expect(slot.connecting)
            order.append(2)
            next?.resume()
        }
        await withCheckedContinuation { (third: CheckedContinuation<Void, Never>) in
            let now = slot.connectTurnRequested(third)
            #expect(!now)
            let next = slot.connectTurnEnded()
            order.append(3)
            next?.resume()
        }
        #expect(order == [2, 3])
        #expect(slot.connectTurnEnded() == nil)
        #expect(!slot.connecting)
        #expect(slot.closing() == nil)
    }
}
