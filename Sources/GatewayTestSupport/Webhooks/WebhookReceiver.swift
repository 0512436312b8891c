import Foundation
import GatewayTransport
import Synchronization

/// A test's HTTPS webhook receiver: `webhook_receiver.py` beside this file, as a real process, with a
/// certificate for `localhost` from a CA the test creates. The test sets each path's answer
/// (ok, fail, hold, close) and reads what arrived.
public final class WebhookReceiver: Sendable {
    /// One request as the receiver logged it, before answering.
    public struct Request: Sendable {
        public var path: String
        public var signature: String
        public var contentType: String
        public var body: [UInt8]
        public var mode: String

        /// The delivered event's `id`.
        public var eventID: String? {
            (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["id"] as? String
        }
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("webhook_receiver.py").path

    public let directory: String
    public let process: LoggedProcess
    public let port: Int
    /// The CA of the receiver's certificate (the gateway's `--webhook-ca-file`).
    public let caPath: String
    private let modes = Mutex<[String: String]>([:])

    private init(directory: String, process: LoggedProcess, port: Int, caPath: String) {
        self.directory = directory
        self.process = process
        self.port = port
        self.caPath = caPath
    }

    public var logPath: String { directory + "/requests.jsonl" }
    public var controlPath: String { directory + "/control.json" }

    /// Starts a receiver in a fresh directory.
    public static func start() async throws -> WebhookReceiver {
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

    public struct ReceiverError: Error, CustomStringConvertible {
        public var description: String
    }

    /// `https://localhost:<port><path>`.
    public func url(_ path: String) -> String { "https://localhost:\(port)\(path)" }

    /// Sets how `path` is answered from the next request on (a held request is let go once its
    /// path says anything but `hold`).
    public func set(_ path: String, _ mode: String) throws {
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
    public func requests(_ path: String? = nil) -> [Request] {
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

    public func stop() async {
        _ = await process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
