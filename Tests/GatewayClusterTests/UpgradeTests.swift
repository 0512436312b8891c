import Foundation
import GatewayCore
import GatewayRepositories
import GatewayTestSupport
import Testing

/// `make upgrade-test`: the previous release and this one side by side on one PostgreSQL,
/// under lane load. Three replicas of the previous release (`UPGRADE_PREVIOUS_BINARY`, built by
/// the make target from the commit `CHANGELOG.md` records for it) migrate a fresh database and
/// serve a store behind the balancer; then they are rolled one by one to this release, back
/// to the previous one (which starts on the schema this release migrated: no restore), and
/// forward again. In every phase one replica still on the other release is killed -9 and
/// started again (it must start on whatever schema the database is at), and one reader is
/// killed and comes back.
///
/// Checked: no command acknowledged and then lost, one owner per reader (PostgreSQL's, and
/// the only lane that believes it), generations and link epochs only rising, a history
/// without gaps that agrees with what the lanes were told, every lane served again within its
/// resume bound after each step, each replica's node row naming the release it runs, the
/// previous release logging that it runs on the newer schema, and the database never taken
/// back (schema and registrations only grow). Prints a summary per phase.
@Suite(
    "upgrade and rollback under load", .serialized, .timeLimit(.minutes(30)),
    .enabled(if: ProcessInfo.processInfo.environment["UPGRADE_PREVIOUS_BINARY"] != nil)
)
struct UpgradeTests {
    struct Phase {
        var name: String
        /// nil: this package's reader-gateway.
        var binary: String?
        var version: String
    }

    struct PhaseSummary: CustomStringConvertible {
        var name: String
        var rolled: [String] = []
        var completed = 0
        var lost = 0
        var retried = 0
        var kills: [String] = []
        var recoveries: [Duration] = []

        var description: String {
            "upgrade: phase \"\(name)\": rolled \(rolled.joined(separator: ", ")); \(kills.joined(separator: "; ")); commands acknowledged \(completed), lost \(lost), retried \(retried); slowest recovery \(recoveries.max().map(seconds) ?? "-")"
        }
    }

    /// A lane must be served again within this long after a step (its resume bound: the
    /// session lease, plus the node lease a killed replica's readers wait for, plus start-up).
    static let resumeBound: Duration = .seconds(45)

    @Test func rollForwardBackAndForwardAgainLosesNothing() async throws {
        let environment = ProcessInfo.processInfo.environment
        let previousBinary = try #require(environment["UPGRADE_PREVIOUS_BINARY"])
        let previousVersion = try #require(environment["UPGRADE_PREVIOUS_VERSION"])
        let current = GatewayVersion.current.description
        try #require(FileManager.default.isExecutableFile(atPath: previousBinary), "UPGRADE_PREVIOUS_BINARY \(previousBinary) is not an executable")
        try #require(previousVersion != current, "the previous release \(previousVersion) is this release")
        print("upgrade: previous release \(previousVersion) (\(previousBinary)), this release \(current) (schema \(Migrations.latestVersion))")

        var options = ClusterOptions()
        options.binary = previousBinary
        options.watchdog = .seconds(1_500)
        try await ClusterFixture.run(options) { cluster in
            let before = try await cluster.database.schemaAndReaders()
            try cluster.require(before.schema < Migrations.latestVersion, "the previous release migrated the database to \(before.schema), not below this release's \(Migrations.latestVersion): nothing to upgrade")
            try await expectVersions(cluster, previousVersion)

            let scene = try await cluster.scene(6, prefix: "UPG", reconnect: true, retryWindow: .seconds(60))
            let monotonic = MonotonicWatch(cluster: cluster, readerIDs: scene.readerIDs)
            monotonic.start()
            scene.startLoad()
            let going = await eventuallyIgnoringErrors(timeout: .seconds(20)) { scene.loads.allSatisfy { $0.snapshot.completed.count >= 2 } }
            try await cluster.require(going, "the load did not get going on the previous release", showing: scene)

            let phases = [
                Phase(name: "roll forward to \(current)", binary: nil, version: current),
                Phase(name: "roll back to \(previousVersion)", binary: previousBinary, version: previousVersion),
                Phase(name: "roll forward again to \(current)", binary: nil, version: current),
            ]
            var summaries: [PhaseSummary] = []
            var previousSchema = before.schema
            for (number, phase) in phases.enumerated() {
                var summary = PhaseSummary(name: phase.name)
                let completedBefore = scene.completed
                let lostBefore = scene.lost.count
                let retriedBefore = scene.retried.values.reduce(0, +)
                for (index, replica) in cluster.replicas.enumerated() {
                    let step = ContinuousClock.now
                    let from = replica.binary == nil ? current : previousVersion
                    await replica.terminate()
                    replica.binary = phase.binary
                    try await replica.start()
                    summary.rolled.append("\(replica.name) \(from)→\(phase.version)")
                    try await expectVersion(cluster, replica, phase.version)
                    if index == 0 {
                        // A replica still on the other release dies and starts again on
                        // whatever schema the database is at now.
                        let victim = cluster.replicas[2]
                        let release = victim.binary == nil ? current : previousVersion
                        await victim.kill9()
                        try await victim.start()
                        try await expectVersion(cluster, victim, release)
                        summary.kills.append("kill -9 of \(victim.name) on \(release), started again")
                        if number == 0 { try await printNodes(cluster, showing: [previousVersion, current]) }
                    } else if index == 1 {
                        let reader = scene.readers[number % scene.readers.count]
                        let attachments = reader.attachments
                        reader.stop()
                        reader.start()
                        let back = await reader.waitForAttachment(after: attachments, timeout: .seconds(30))
                        try cluster.require(back, "reader \(reader.serial) killed in \(phase.name) did not attach again")
                        summary.kills.append("reader \(reader.serial) killed and back")
                    }
                    let recovery = await cluster.waitForRecovery(scene, since: step, timeout: Self.resumeBound)
                    await cluster.expect(recovery != nil, "\(phase.name): lanes not all served again within \(Self.resumeBound) after rolling \(replica.name)", showing: scene)
                    guard let recovery else { break }
                    summary.recoveries.append(recovery)
                    let schema = try await cluster.database.schemaAndReaders()
                    cluster.expect(schema.schema >= previousSchema, "the schema went back from \(previousSchema) to \(schema.schema): a restore")
                    cluster.expect(schema.readers >= before.readers + scene.readers.count, "registrations went back: \(schema.readers) readers")
                    previousSchema = max(previousSchema, schema.schema)
                }
                if phase.binary != nil {
                    let onNewer = cluster.replicas.flatMap { $0.lines(containing: "the database schema is newer than this reader-gateway knows") }
                    cluster.expect(!onNewer.isEmpty, "the previous release never said it runs on the newer schema")
                }
                summary.completed = scene.completed - completedBefore
                summary.lost = scene.lost.count - lostBefore
                summary.retried = scene.retried.values.reduce(0, +) - retriedBefore
                print(summary)
                summaries.append(summary)
                if cluster.hasFailed { break }
            }
            await scene.stopLoad()
            await monotonic.stop()

            let after = try await cluster.database.schemaAndReaders()
            cluster.expect(after.schema == Migrations.latestVersion, "the database ends at schema \(after.schema), not \(Migrations.latestVersion)")
            try await expectVersions(cluster, current)
            // One owner per reader: PostgreSQL's, and the only lane that believes it.
            let rows = try await cluster.database.ownership()
            for (index, id) in scene.readerIDs.enumerated() {
                let lane = scene.lanes[index]
                cluster.expect(rows[id]?.session != nil && rows[id]?.session == lane.sessionID, "\(id) is owned by \(rows[id]?.lane ?? "nobody"), not \(lane.label)")
            }
            cluster.expect(cluster.doubleOwners(scene).isEmpty, "\(cluster.doubleOwners(scene))")
            cluster.expect(monotonic.violations.isEmpty, "generations or epochs went back: \(monotonic.violations)")
            cluster.expect(scene.lost.isEmpty, "commands acknowledged and then lost: \(scene.lost)")
            let problems = try await cluster.historyProblems(scene.readerIDs)
            cluster.expect(problems.isEmpty, "history: \(problems)")
            for (index, id) in scene.readerIDs.enumerated() {
                let history = try await cluster.database.history(id).filter { $0.reason != "refused_busy" }
                for generation in scene.loads[index].snapshot.granted {
                    cluster.expect(
                        history.contains { $0.generation == Int64(generation) && $0.to == scene.lanes[index].sessionID },
                        "\(scene.lanes[index].label) was granted generation \(generation) of \(id), the history does not say so"
                    )
                }
            }
            try await expectRefusalBelowTheFloor(cluster, previousBinary: previousBinary, previousVersion: previousVersion)
            print("upgrade: \(summaries.count) phases, \(summaries.flatMap(\.rolled).count) replica rollouts (\(cluster.replicas.count * 2) forward, \(cluster.replicas.count) back), \(scene.completed) commands acknowledged, \(scene.lost.count) lost; schema \(before.schema) → \(after.schema), no restore")
        }
    }

    /// A later release's contract step with a floor above the previous release: the previous
    /// release's binary refuses to start, naming its release, the one that migrated and the floor.
    func expectRefusalBelowTheFloor(_ cluster: ClusterFixture, previousBinary: String, previousVersion: String) async throws {
        let later = "\(GatewayVersion.current.major).\(GatewayVersion.current.minor + 1).0"
        _ = try await cluster.database.withClient { client in
            try await client.execute(
                "INSERT INTO schema_migrations (version, name, compatible_from, applied_by) VALUES ($1, 'a later release''s contract step', $2, $3)",
                [.init(Migrations.latestVersion + 1), .init(GatewayVersion.current.description), .init(later)]
            )
        }
        let refused = try await LoggedProcess.start(previousBinary, [
            "--database-url", cluster.postgres.connectionString, "--address", "127.0.0.1", "--port", "0",
            "--internal-address", "127.0.0.1", "--internal-port", "0", "--node-name", "below-floor",
        ], logPath: cluster.directory + "/below-floor.log")
        let status = await refused.process.wait(timeout: .seconds(60))
        if status == nil { refused.process.signal(SIGKILL) }
        let output = refused.output
        cluster.expect(status != nil && status != 0, "the previous release \(previousVersion) started below the floor \(GatewayVersion.current) (status \(String(describing: status))):\n\(output)")
        for text in ["migrated by reader-gateway \(later)", "compatible from \(GatewayVersion.current)", "this reader-gateway is \(previousVersion)"] {
            cluster.expect(output.contains(text), "the refusal does not say \"\(text)\":\n\(output)")
        }
        print("upgrade: below the floor, \(previousVersion) refuses: \(output.split(separator: "\n").first { $0.contains("compatible from") } ?? "")")
        _ = try await cluster.database.withClient { client in
            try await client.execute("DELETE FROM schema_migrations WHERE version = $1", [.init(Migrations.latestVersion + 1)])
        }
    }

    /// Every registered replica's node row names `version`.
    func expectVersions(_ cluster: ClusterFixture, _ version: String) async throws {
        for replica in cluster.replicas { try await expectVersion(cluster, replica, version) }
    }

    /// The replica's current node row names `version`.
    func expectVersion(_ cluster: ClusterFixture, _ replica: Replica, _ version: String) async throws {
        let node = try replica.nodeID.orThrow("\(replica.name) logged no node id")
        let versions = try await cluster.database.nodeVersions()
        cluster.expect(versions[node] == .some(version), "\(replica.name)'s node \(node) records release \(String(describing: versions[node])), not \(version)")
    }

    /// `gatewayctl nodes` during the rollout: it must list every release in `releases`.
    func printNodes(_ cluster: ClusterFixture, showing releases: [String]) async throws {
        let ctl = try await LoggedProcess.start(PackageExecutables.path("gatewayctl"), ["nodes", "--database-url", cluster.postgres.connectionString], logPath: cluster.directory + "/gatewayctl-nodes.log")
        let status = await ctl.process.wait(timeout: .seconds(30))
        cluster.expect(status == 0, "gatewayctl nodes exited \(String(describing: status)): \(ctl.output)")
        print("upgrade: gatewayctl nodes\n\(ctl.output)")
        for release in releases { cluster.expect(ctl.output.contains(" \(release) "), "gatewayctl nodes does not list release \(release):\n\(ctl.output)") }
    }
}
