import GatewayDomain
import GatewayRepositories
import GatewayWire

/// A surface that shows readers as the store describes them, with their live status
/// from a link here.
protocol ShowsReaders {
    var readerRecords: any ReaderRepository { get }
    var registry: LiveRegistry { get }
}

extension ShowsReaders {
    func readerMessage(_ id: String, account: String) async throws(ServiceError) -> ReaderGatewayV1.Reader {
        let record: ReaderRecord?
        do { record = try await readerRecords.reader(id, account: account) } catch { throw ServiceError.store(error) }
        guard let record else { throw ServiceError.readerNotFound }
        return Gateway.readerMessage(at: registry.clock, record, link: registry.linkStatus(of: ReaderID(id)))
    }
}
