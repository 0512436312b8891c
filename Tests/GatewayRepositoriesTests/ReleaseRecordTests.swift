import Foundation
import GatewayCore
import GatewayPostgres
import GatewayRepositories
import Testing

/// The release is written once (``GatewayVersion/current``) and repeated where tools that
/// cannot read Swift need it; these must agree, and CHANGELOG.md must record it.
@Suite("Release record")
struct ReleaseRecordTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func chartImageAndChangelogNameThisRelease() throws {
        let version = GatewayVersion.current.description
        let chart = try Self.read("helm/reader-gateway/Chart.yaml")
        #expect(chart.contains("\nappVersion: \"\(version)\"\n"), "helm/reader-gateway/Chart.yaml's appVersion is not \(version)")
        let dockerfile = try Self.read("docker/Dockerfile")
        #expect(dockerfile.contains("org.opencontainers.image.version=\"\(version)\""), "docker/Dockerfile's version label is not \(version)")
        let changelog = try Self.read("CHANGELOG.md")
        let releases = changelog.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
        #expect(releases.first == version, "CHANGELOG.md's newest entry is \(releases.first ?? "none"), not \(version)")
    }

    /// Every release the changelog records is a version, newest first, and every one but this
    /// tree's names the commit it was cut from (the upgrade test builds the previous one).
    @Test func everyEarlierReleaseNamesItsCommit() throws {
        let lines = try Self.read("CHANGELOG.md").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var releases: [(version: GatewayVersion, commit: String?)] = []
        for line in lines {
            if line.hasPrefix("## ") {
                let version = try #require(GatewayVersion(String(line.dropFirst(3))), "CHANGELOG.md: \(line) is not a release version")
                releases.append((version, nil))
            } else if line.hasPrefix("Commit: `"), !releases.isEmpty {
                releases[releases.count - 1].commit = line.split(separator: "`").dropFirst().first.map(String.init)
            }
        }
        #expect(releases.count >= 2, "CHANGELOG.md records no release before this one")
        for index in releases.indices.dropFirst() {
            #expect(releases[index - 1].version > releases[index].version, "CHANGELOG.md's releases are not newest first")
        }
        for release in releases where release.version != .current {
            let commit = release.commit ?? ""
            #expect(commit.count == 40 && commit.allSatisfy(\.isHexDigit), "CHANGELOG.md: release \(release.version) names no commit")
        }
    }

    /// Each migration's floor is a release the changelog records (or this one).
    @Test func everyFloorIsARecordedRelease() throws {
        let changelog = try Self.read("CHANGELOG.md")
        for migration in Migrations.all {
            #expect(changelog.contains("\n## \(migration.compatibleFrom)\n"), "migration \(migration.version)'s floor \(migration.compatibleFrom) is no release in CHANGELOG.md")
        }
    }
}
