import GatewayPostgres
import GatewayRepositories
import Synchronization

/// This replica's identity in the node directory: `<name>-<6 random characters>`,
/// new for every process start and again after the replica found itself
/// reaped (fenced), so nothing another replica decided about an older
/// incarnation can be mistaken for this one.
final class NodeIdentity: Sendable {
    let name: String
    private let current: Mutex<String>

    init(name: String) {
        self.name = name
        self.current = Mutex(NodeIdentity.make(name))
    }

    /// The node id of the running incarnation.
    var id: String { current.withLock { $0 } }

    /// Starts a new incarnation and returns its id.
    @discardableResult
    func renew() -> String {
        let fresh = NodeIdentity.make(name)
        current.withLock { $0 = fresh }
        return fresh
    }

    private static func make(_ name: String) -> String {
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        var generator = SystemRandomNumberGenerator()
        let suffix = String((0..<6).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
        // Node ids travel in space-separated NOTIFY payloads: no spaces.
        let cleaned = name.isEmpty ? "node" : String(name.map { $0 == " " ? "-" : $0 })
        return "\(cleaned)-\(suffix)"
    }
}
