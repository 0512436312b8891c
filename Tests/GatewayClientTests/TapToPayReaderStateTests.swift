import GatewayClient
@testable import GatewayClientCore
import GatewayWire
import Testing

/// The simulated Tap to Pay reader's state between commands, without I/O.
@Suite("Tap to Pay reader state")
struct TapToPayReaderStateTests {
    typealias State = TapToPayReader.State

    @Test("a collect waits for the tap: the tap answers it, records the amount and makes the reader idle")
    func collectWaitsForTap() {
        var state = State()
        #expect(state.collectStarted(id: 7, amount: 1_250, automatic: nil) == nil)
        #expect(state.isWaitingForTap)
        #expect(state.activity == .collecting)
        #expect(state.cardPresented(PresentedCard()) == 7)
        #expect(!state.isWaitingForTap)
        #expect(state.lastAmount == 1_250)
        #expect(state.activity == .idle)
    }

    @Test("a tap before any collect is read by the next collect at once; so is the automatic card")
    func tapFirst() {
        var state = State()
        let card = PresentedCard()
        #expect(state.cardPresented(card) == nil)
        #expect(state.collectStarted(id: 1, amount: 500, automatic: nil) == card)
        #expect(state.lastAmount == 500)
        #expect(state.collectStarted(id: 2, amount: 700, automatic: card) == card)
        #expect(state.lastAmount == 700)
        #expect(!state.isWaitingForTap)
    }

    @Test("a cancel ends the waiting collect (its id to answer), and nothing when none waits")
    func cancel() {
        var state = State()
        #expect(state.collectCancelled() == nil)
        _ = state.collectStarted(id: 9, amount: 100, automatic: nil)
        #expect(state.collectCancelled() == 9)
        #expect(state.activity == .idle)
        #expect(state.cardPresented(PresentedCard()) == nil)
    }
}
