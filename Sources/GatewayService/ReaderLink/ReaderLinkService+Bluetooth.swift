import Foundation
import GatewayDomain
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension ReaderLinkService {
    /// A mobile reader's link ended (a Bluetooth reader's, or a Tap to Pay phone's own): the
    /// reason its device gave (else `rebootRequested` for a link the gateway relayed a reboot
    /// on, else `unknown`) is recorded for the fleet's history, dated when the device's ending
    /// arrived (else now), and the owner is kept through the offline bound while the device
    /// reconnects (`MobileLinkEndRule`), else released as for any lost reader. A link whose
    /// device said why it ends was ended in order: its call ends OK, where a link that ended
    /// without a word (the device's connection dropped, or it half-closed saying nothing)
    /// ends with READER_OFFLINE like any lost reader's.
    func mobileLinkEnded(_ reader: ReaderID, linkID: LinkID, epoch: LinkEpoch, ending received: LinkEndingReceipt.Received?) async {
        let ending = received?.ending
        let keepsOwner = MobileLinkEndRule.keepsOwner(reconnecting: ending?.reconnecting)
        // Without the device's word (its lane's connection ended first), a reboot the gateway
        // relayed on this link, still the reader's current one, is the reason.
        let rebootRelayed = ending == nil && registry.rebootRequested(reader, link: linkID)
        let reason = ending?.reason ?? (rebootRelayed ? .rebootRequested : .unknown)
        let at = received?.at ?? configuration.clock.date
        await followUp("recording why a mobile reader's link ended", leaves: "the reader's history lacks this disconnect reason") {
            try await linkEndings.recordLinkEnding(reader: reader.rawValue, reason: reason, reconnecting: keepsOwner, at: at)
        }
        let orderly = ending != nil
        guard keepsOwner, !handingOver.load(ordering: .relaxed) else {
            await linkEnded(reader, linkID: linkID, epoch: epoch, orderly: orderly)
            return
        }
        guard let ended = registry.linkEnded(reader, link: linkID, orderly: orderly) else { return }
        defer { if ended.rebootRequested { registry.rebootReported(reader) } }
        metrics.readersOnline.unlabeled.decrement()
        // The device reconnects: the owner keeps the reader unless no link comes back within
        // the offline bound (then the periodic release frees it, as for a drained replica).
        do { _ = try await ownership.readerDetached(reader, epoch: epoch) } catch {
            logger.warning("could not keep a reconnecting mobile reader's owner; it is released when its link is found lost", ["reader": reader, "error": error])
        }
    }
}
