import Foundation
import GatewayTestSupport
import GatewayTransport
import Synchronization

/// The test's HTTPS webhook receiver: `receiver/webhook_receiver.py` as a real process, with a
/// certificate for `localhost` from a CA the test creates. The test sets each path's answer
/// (ok, fail, hold, close) and reads what arrived.
final class WebhookReceiver: Sendable {
    /// One request as the receiver logged it, before answering.
    struct Request: Sendable {
        var path: String
        var signature: String
        var contentType: String
        var body: [UInt8]
        var mode: String

        /// The delivered event's `id`.
        var eventID: String? {
            (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["id"] as? String
        }
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("receiver/webhook_receiver.py").path

    let directory: String
    let process: LoggedProcess
    let port: Int
    /// The CA of the receiver's certificate (the gateway's `--webhook-ca-file`).
    let caPath: String
    private let modes = Mutex<[String: String]>([:])

    private init(directory: String, process: LoggedProcess, port: Int, caPath: String) {
        self.directory = directory
        self.process = process
        self.port = port
        self.caPath = caPath
    }

    var logPath: String { directory + "/requests.jsonl" }
    var controlPath: String { directory + "/control.json" }

    /// Starts a receiver in a fresh directory.
    static func start() async throws -> WebhookReceiver {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-receiver-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ca = try CertificateAuthority.create(commonName: "Webhook test CA")
        try ca.write(certificatePath: directory + "/ca.pem", keyPath: directory + "/ca-key.pem")
        let pair = try ca.issue(CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], usage: .server), writingTo: directory, name: "receiver")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/control.json"))
        _ = FileManager.default.createFile(atPath: directory + "/requests.jsonl", contents: nil)
        let process = try await LoggedProcess.start(
            "/usr/bin/python3", ["-u", script, pair.certificateChainPath, pair.privateKeyPath, directory + "/requests.jsonl", directory + "/control.json"],
            logPath: directory + "/receiver.log"
        )
        guard let line = await process.waitForLine(containing: "listening port="), let port = LoggedProcess.field("port", in: line).flatMap(Int.init) else {
            _ = await process.stop()
            throw ReceiverError(description: "the webhook receiver did not start: \(process.tail(20))")
        }
        return WebhookReceiver(directory: directory, process: process, port: port, caPath: directory + "/ca.pem")
    }

    struct ReceiverError: Error, CustomStringConvertible {
        var description: String
    }

    /// `https://localhost:<port><path>`.
    func url(_ path: String) -> String { "https://localhost:\(port)\(path)" }

    /// Sets how `path` is answered from the next request on (a held request is let go once its
    /// path says anything but `hold`).
    func set(_ path: String, _ mode: String) throws {
        let snapshot = modes.withLock { modes in
            modes[path] = mode
            return modes
        }
        let data = try JSONSerialization.data(withJSONObject: snapshot)
        let temporary = controlPath + ".new"
        try data.write(to: URL(fileURLWithPath: temporary))
        _ = rename(temporary, controlPath)
    }

    /// Every request so far, in arrival order.
    func requests(_ path: String? = nil) -> [Request] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> Request? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let requestPath = object["path"] as? String, path == nil || requestPath == path,
                  let body = (object["body"] as? String).flatMap({ Data(base64Encoded: $0) })
            else { return nil }
            return Request(
                path: requestPath, signature: object["signature"] as? String ?? "", contentType: object["content_type"] as? String ?? "",
                body: Array(body), mode: object["mode"] as? String ?? ""
            )
        }
    }

    func stop() async {
        _ = await process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
