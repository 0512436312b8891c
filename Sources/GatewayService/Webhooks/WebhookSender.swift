import GatewayCore
import GatewayDomain
import GatewayRepositories
import GatewayTransport

/// One attempt of one delivery: the URL parsed, the host resolved (on a thread of its own),
/// the address vetted by the SSRF guard, then the signed POST over TLS with a deadline.
///
/// The guard judges the address the connection is made to, never the name alone: a name
/// resolving to a private address is refused as a literal one is. Nothing here blocks an
/// event loop or the cooperative pool: the lookup has its own thread, the connection is the
/// transport's non-blocking one.
public struct WebhookSender: Sendable {
    /// What an attempt came to.
    public enum Outcome: Sendable, Hashable {
        /// The endpoint answered 2xx.
        case delivered(status: Int)
        /// Anything else: the status when there was an answer, and a sentence.
        case failed(status: Int?, reason: String)
    }

    public let post: HTTPSPost
    public let policy: WebhookAddressPolicy
    public let userAgent: String

    public init(post: HTTPSPost, policy: WebhookAddressPolicy, userAgent: String = "ReaderGateway-Webhooks/\(GatewayVersion.current)") {
        self.post = post
        self.policy = policy
        self.userAgent = userAgent
    }

    /// Sends `delivery` signed at `timestamp` (unix seconds) from `loop`.
    public func send(_ delivery: WebhookDelivery, timestamp: Int64, on loop: EventLoop) async -> Outcome {
        let url: WebhookURL
        do { url = try WebhookURL(delivery.url) } catch {
            return .failed(status: nil, reason: "the endpoint's URL is refused: \(error)")
        }
        let address: SocketAddress
        do {
            address = try await vettedAddress(url)
        } catch {
            return .failed(status: nil, reason: "\(error)")
        }
        let body = WebhookPayload.body(delivery.event)
        let headers = [
            ("Content-Type", "application/json"),
            ("User-Agent", userAgent),
            (WebhookSignature.headerName, WebhookSignature.header(secret: delivery.secret, timestamp: timestamp, body: body)),
        ]
        do {
            let response = try await post.send(
                to: address, serverName: url.host, hostHeader: url.hostHeader, target: url.target, headers: headers, body: body, on: loop
            )
            if (200...299).contains(response.status) { return .delivered(status: response.status) }
            return .failed(status: response.status, reason: "the endpoint answered HTTP \(response.status)")
        } catch {
            return .failed(status: nil, reason: "\(error)")
        }
    }

    /// The first address of `url`'s host that the policy allows, or an error naming the
    /// refused ones and the flag that would allow them.
    public func vettedAddress(_ url: WebhookURL) async throws -> SocketAddress {
        let addresses = try await HostResolver.resolve(url.host, port: url.port)
        var refused: [String] = []
        for address in addresses {
            guard let refusal = policy.refusal(address.addressBytes) else { return address }
            refused.append("\(address.hostText) (\(refusal))")
        }
        throw WebhookAddressRefused(
            "refused to deliver to \(url.host): it resolves to \(refused.joined(separator: ", ")); receivers on loopback or private "
                + "networks need the gateway's --webhook-allow-private-addresses"
        )
    }
}

/// The SSRF guard refused every address of an endpoint's host.
public struct WebhookAddressRefused: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
