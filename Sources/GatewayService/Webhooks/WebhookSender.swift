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
        let addresses: [SocketAddress]
        do {
            addresses = try await vettedAddresses(url)
        } catch {
            return .failed(status: nil, reason: "\(error)")
        }
        let body = WebhookPayload.body(delivery.event)
        let headers = [
            ("Content-Type", "application/json"),
            ("User-Agent", userAgent),
            (WebhookSignature.headerName, WebhookSignature.header(secret: delivery.secret, timestamp: timestamp, body: body)),
        ]
        // Each allowed address in the resolver's order until one accepts the connection
        // (`localhost` may answer ::1 first to a receiver listening on 127.0.0.1 only).
        var refusals: [String] = []
        for address in addresses {
            do {
                let response = try await post.send(
                    to: address, serverName: url.host, hostHeader: url.hostHeader, target: url.target, headers: headers, body: body, on: loop
                )
                if (200...299).contains(response.status) { return .delivered(status: response.status) }
                return .failed(status: response.status, reason: "the endpoint answered HTTP \(response.status)")
            } catch let error as TransportError where error.code == .connectFailed {
                refusals.append("\(error)")
            } catch {
                return .failed(status: nil, reason: "\(error)")
            }
        }
        return .failed(status: nil, reason: refusals.joined(separator: "; "))
    }

    /// The addresses of `url`'s host that the policy allows, in the resolver's order, or an
    /// error naming the refused ones and the flag that would allow them.
    public func vettedAddresses(_ url: WebhookURL) async throws -> [SocketAddress] {
        let addresses = try await HostResolver.resolve(url.host, port: url.port)
        var allowed: [SocketAddress] = []
        var refused: [String] = []
        for address in addresses {
            if let refusal = policy.refusal(address.addressBytes) {
                refused.append("\(address.hostText) (\(refusal))")
            } else {
                allowed.append(address)
            }
        }
        guard allowed.isEmpty else { return allowed }
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
