@testable import GatewayService
import GatewayWire
import Testing

/// What a reader's failed result becomes on the lane's call: its reason (READER_ERROR when it
/// gave none), and for a decline a decline code as Stripe writes them — `generic_decline` when
/// the reader named none or sent something else, never passed on as sent.
@Suite("a reader's reported failure")
struct ReaderReportedErrorTests {
    static func declined(_ code: String) -> ReaderGatewayV1.Status {
        var status = ReaderGatewayV1.Status(.cardDeclined, "declined")
        status.declineCode = code
        return status
    }

    @Test(arguments: ["insufficient_funds", "generic_decline", "do_not_honor", "r2", String(repeating: "a", count: 64)])
    func aWellFormedDeclineCodeIsKept(_ code: String) {
        let error = ServiceError.readerReported(Self.declined(code))
        #expect(error.reason == .cardDeclined && error.declineCode == code && error.message == "declined")
        #expect(error.status.declineCode == code && error.status.code == .failedPrecondition)
    }

    @Test(arguments: ["", "Insufficient_Funds", "insufficient funds", "_x", "9lives", "café", "code\n", String(repeating: "a", count: 65)])
    func anyOtherDeclineCodeBecomesGeneric(_ code: String) {
        let error = ServiceError.readerReported(Self.declined(code))
        #expect(error.reason == .cardDeclined && error.declineCode == "generic_decline", "\(code.debugDescription) → \(error)")
    }

    @Test func aFaultKeepsItsReasonWithoutADeclineCode() {
        var removed = ReaderGatewayV1.Status(.readerError, "the card was removed")
        removed.declineCode = "insufficient_funds"
        let fault = ServiceError.readerReported(removed)
        #expect(fault.reason == .readerError && fault.declineCode == nil && fault.status.declineCode.isEmpty)
        let unnamed = ServiceError.readerReported(ReaderGatewayV1.Status(.unspecified, ""))
        #expect(unnamed.reason == .readerError && unnamed.message == "the reader reported a failure")
        let silentDecline = ServiceError.readerReported(ReaderGatewayV1.Status(.cardDeclined, ""))
        #expect(silentDecline.message == "the card was declined" && silentDecline.declineCode == "generic_decline")
    }
}
