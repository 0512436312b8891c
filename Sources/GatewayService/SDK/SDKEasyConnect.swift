import GatewayDomain
import GatewayWire

/// EasyConnect on the SDK surface (Stripe's `easyConnect`): a DiscoverReaders narrowed by
/// the request's filter, then ConnectReader of the reader it answered, under exactly the
/// rules and errors of those two calls. Nothing found is READER_NOT_FOUND.
struct SDKEasyConnect: Sendable {
    let discovery: SDKDiscovery
    let connect: SDKConnect

    func easyConnect(_ request: ReaderGatewayV1.EasyConnectRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.EasyConnectResponse {
        let parsed: ReaderFilter?
        do {
            parsed = try ReaderFilter.parse(readerID: request.filter?.readerID ?? "", serialNumber: request.filter?.serialNumber ?? "")
        } catch {
            throw ServiceError.invalid(error.message)
        }
        guard let filter = parsed else {
            throw ServiceError.invalid(
                "EasyConnect needs a filter naming the reader (filter.reader_id or filter.serial_number); to choose among a location's readers, call DiscoverReaders and ConnectReader"
            )
        }
        var discover = ReaderGatewayV1.DiscoverReadersRequest()
        discover.sessionToken = request.sessionToken
        discover.locationID = request.locationID
        discover.filter = request.filter
        let found = try await discovery.discoverReaders(discover, filter: filter, context)
        guard let reader = found.readers.first else {
            let place = request.locationID.isEmpty ? "the locations this session's connection token allows" : "location \(request.locationID)"
            throw ServiceError(
                .readerNotFound,
                "no reader with \(filter) is registered at \(place) in this account; check the id or serial (gatewayctl readers list) and the location"
            )
        }
        var connectRequest = ReaderGatewayV1.ConnectReaderRequest()
        connectRequest.sessionToken = request.sessionToken
        connectRequest.readerID = reader.id
        connectRequest.discoveryID = found.discoveryID
        connectRequest.failIfInUse = request.failIfInUse
        connectRequest.posDeviceID = request.posDeviceID
        connectRequest.laneLabel = request.laneLabel
        var response = ReaderGatewayV1.EasyConnectResponse()
        response.discoveryID = found.discoveryID
        response.connection = try await connect.connectReader(connectRequest, context)
        return response
    }
}
