import Foundation
import GatewayTestSupport

/// nginx `stream` in front of the replicas' TLS ports, round robin, standing in for the
/// Kubernetes Service: TCP passthrough (TLS ends at the replica), a dead replica is skipped
/// (connect refused: the next upstream, never marked down: a replica restarting must not
/// take its healthy peers out of the rotation). One process (no master), so that it dies with the test
/// process (parent-death signal).
struct LoadBalancer: Sendable {
    let port: Int
    let process: LoggedProcess

    static func start(port: Int, upstreams: [Int], directory: String) async throws -> LoadBalancer {
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        let module = "/usr/lib/nginx/modules/ngx_stream_module.so"
        let servers = upstreams.map { "        server 127.0.0.1:\($0) max_fails=0;" }.joined(separator: "\n")
        let configuration = """
        \(FileManager.default.fileExists(atPath: module) ? "load_module \(module);" : "")
        daemon off;
        master_process off;
        pid \(directory)/nginx.pid;
        error_log \(directory)/logs/error.log info;
        events { worker_connections 4096; }
        stream {
            upstream gateways {
        \(servers)
            }
            server {
                listen 127.0.0.1:\(port) reuseport;
                proxy_pass gateways;
                proxy_connect_timeout 1s;
                proxy_timeout 1h;
                proxy_next_upstream on;
                proxy_next_upstream_tries \(upstreams.count);
            }
        }
        """
        let path = directory + "/nginx.conf"
        try configuration.write(toFile: path, atomically: true, encoding: .utf8)
        guard let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ClusterError("nginx is not installed (make test-deps installs nginx-light and libnginx-mod-stream)")
        }
        let process = try await LoggedProcess.start(
            nginx, ["-p", directory, "-c", path, "-e", directory + "/logs/error.log"], logPath: directory + "/nginx.out"
        )
        let balancer = LoadBalancer(port: port, process: process)
        let listening = await eventuallyIgnoringErrors(timeout: .seconds(10), interval: .milliseconds(20)) {
            guard process.process.poll() == nil else { throw ClusterError("nginx exited") }
            return balancer.accepts()
        }
        guard listening else {
            await balancer.stop()
            throw ClusterError("nginx did not listen on \(port):\n\(process.output)\n\(balancer.errorLog)")
        }
        return balancer
    }

    /// Whether a TCP connect to the port succeeds.
    func accepts() -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    var errorLog: String {
        let directory = (process.logPath as NSString).deletingLastPathComponent
        return (try? String(contentsOfFile: directory + "/logs/error.log", encoding: .utf8)) ?? ""
    }

    /// SIGTERM, then SIGKILL; waited for.
    func stop() async {
        process.process.signal(SIGTERM)
        if await process.process.wait(timeout: .seconds(5)) == nil {
            process.process.signal(SIGKILL)
            _ = await process.process.wait(timeout: .seconds(5))
        }
    }
}
