import GatewayClient
@testable import GatewayClientCore

extension TerminalClient {
    /// Returns once the client's own report of a loss (if one was scheduled) has run.
    func lossReportHasRun() async {
        await feedSession { $0.lostReader.task }?.value
    }
}
