import Foundation
import GatewayWire
import Synchronization

/// What a Bluetooth reader's device said as its link ended (`ReaderLinkEnding`), and when the
/// gateway received it: taken on the connection's loop, in the order the device's messages
/// arrived, so a link's ending is dated before the next link of the same reader attaches
/// however late the old link's serving task records it (under load it may run after the
/// next link has already ended).
final class LinkEndingReceipt: Sendable {
    struct Received: Sendable {
        let ending: ReaderGatewayV1.ReaderLinkEnding
        let at: Date
    }

    private let received = Mutex<Received?>(nil)

    /// The device's ending arrived at `at` (the first one counts).
    func receive(_ ending: ReaderGatewayV1.ReaderLinkEnding, at: Date) {
        received.withLock { if $0 == nil { $0 = Received(ending: ending, at: at) } }
    }

    var taken: Received? { received.withLock { $0 } }
}
