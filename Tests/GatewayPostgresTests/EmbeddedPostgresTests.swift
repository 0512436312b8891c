import Foundation
import GatewayCore
@testable import GatewayPostgres
import GatewayTestSupport
import Testing

@Suite("EmbeddedPostgres")
struct EmbeddedPostgresTests {
    let logger = Logger(component: "test-postgres")

    @Test func secondStartOnTheSameDirectoryIsRefused() async throws {
        let server = try await TestPostgres.privateServer()
        defer { try? FileManager.default.removeItem(atPath: server.dataDirectory) }
        do throws(StoreError) {
            let second = try await EmbeddedPostgres.start(server.configuration, logger: logger)
            await second.stop()
            Issue.record("a second server started on the same data directory")
        } catch {
            #expect(error.code == .dataDirectoryInUse)
            #expect(error.message.contains("data directory \(server.dataDirectory) is in use by reader-gateway pid \(getpid())"))
        }
        await server.stop()
    }

    @Test func stalePostmasterPIDIsIgnored() async throws {
        let server = try await TestPostgres.privateServer()
        defer { try? FileManager.default.removeItem(atPath: server.dataDirectory) }
        await server.stop()
        // A pid that certainly is not a postmaster: a child that has exited and was reaped.
        let gone = try await ChildProcess.spawn("/bin/true", [], environment: [])
        #expect(await gone.wait(timeout: .seconds(10)) == 0)
        try "\(gone.pid)\n\(server.clusterDirectory)\n".write(toFile: server.clusterDirectory + "/postmaster.pid", atomically: true, encoding: .utf8)
        let restarted = try await EmbeddedPostgres.start(server.configuration, logger: logger)
        #expect(PQpingOK(restarted.connectionString()))
        await restarted.stop()
    }

    @Test func orphanedPostmasterIsStoppedAndReplaced() async throws {
        let server = try await TestPostgres.privateServer()
        defer { try? FileManager.default.removeItem(atPath: server.dataDirectory) }
        await server.stop()
        // A postmaster nobody owns (no lock held): what a SIGKILLed gateway leaves if its server survives.
        let binaries = try await EmbeddedPostgres.findBinaries(nil)
        let user: ChildProcess.User? = geteuid() == 0 ? .named("postgres") : nil
        let orphan = try await EmbeddedPostgres.launch(server.configuration, dataDirectory: server.dataDirectory, binaries: binaries, user: user)
        let deadline = ContinuousClock.now + .seconds(30)
        while !PQpingOK(server.connectionString(database: "postgres")), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(PQpingOK(server.connectionString(database: "postgres")))

        let replacement = try await EmbeddedPostgres.start(server.configuration, logger: logger)
        #expect(await orphan.wait(timeout: .seconds(30)) != nil)
        #expect(replacement.serverPID != orphan.pid)
        #expect(PQpingOK(replacement.connectionString()))
        await replacement.stop()
    }
}

import CGatewayPostgres

func PQpingOK(_ conninfo: String) -> Bool { PQping(conninfo) == PQPING_OK }
