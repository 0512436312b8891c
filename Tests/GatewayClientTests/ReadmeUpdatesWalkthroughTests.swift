import Foundation
import GatewayCommandLine
import GatewayTestSupport
import Testing

/// The README's "Reader software updates", as real processes against a real
/// `reader-gateway`: gatewayctl manages the catalog, a reader-sim mobile reader has the
/// update available, a pos-lane's connect installs it once it is required (progress lines,
/// then connected), and gatewayctl readers list shows the fleet.
@Suite("the README software updates walkthrough", .serialized)
struct ReadmeUpdatesWalkthroughTests {
    @Test func requiredUpdateThroughThePrograms() async throws {
        let readme = try await WalkthroughGateway.start()
        defer { readme.discard() }
        let (ca, secretKey, gatewayAddress, environment) = (readme.ca, readme.secretKey, readme.address, readme.environment)
        func ctl(_ arguments: [String]) async throws -> ChildProcess {
            let process = try await ChildProcess.start("gatewayctl", arguments, environment: environment)
            #expect(await process.waitForExit() == 0, "\(arguments): \(process.standardError)")
            return process
        }
        let location = try #require(try await ctl(["locations", "create", "Floor"]).output.first)

        // gatewayctl updates add ... --required-at in the future: optional for now.
        let added = try await ctl([
            "updates", "add", "--device-type", "mobile", "--version", "1.1.0", "--components", "firmware,config",
            "--duration", "one_to_two_minutes", "--required-at", "2099-12-01T00:00:00Z",
        ])
        #expect(added.output.first == "added mobile 1.1.0", "\(added.output)")
        let list = try await ctl(["updates", "list"])
        #expect(list.output.first?.hasPrefix("DEVICE") == true && list.output.contains { $0.contains("1.1.0") && $0.contains("2099-12-01T00:00:00Z") }, "\(list.output)")

        // A simulated mobile reader at 80 % battery, running 1.0.0.
        let simulator = try await ChildProcess.start("reader-sim", [
            "--gateway", gatewayAddress, "--ca", ca, "--serial", "MOB-README", "--device-type", "mobile", "--software-version", "1.0.0",
            "--battery", "0.8", "--update-duration", "400ms",
        ])
        defer { simulator.terminate() }
        let codeLine = try #require(await simulator.waitForLine { $0.hasPrefix("registration_code serial=MOB-README") }, "\(simulator.output)")
        let code = try #require(OutputLine.parse(codeLine)?["code"])
        let registered = try await ctl(["readers", "register", "--code", code, "--label", "Floor 1", "--location", location])
        let reader = try #require(registered.output.first { $0.contains("Floor 1") }?.split(separator: " ").first.map(String.init))
        let optional = try await ctl(["readers", "list"])
        let optionalRow = try #require(optional.output.first { $0.hasPrefix(reader) }, "\(optional.output)")
        #expect(optionalRow.contains("80%") && optionalRow.contains("1.0.0") && optionalRow.contains("1.1.0 (optional)"), "\(optional.output)")

        // Required now: a lane's connect installs it first.
        _ = try await ctl(["updates", "add", "--device-type", "mobile", "--version", "1.1.0", "--components", "firmware,config",
                           "--duration", "one_to_two_minutes", "--required-at", "2020-01-01T00:00:00Z"])
        let lane = try await ChildProcess.start("pos-lane", [
            "--gateway", gatewayAddress, "--ca", ca, "--secret-key", secretKey, "--location", location, "--lane", "Floor lane", "--pos-device-id", "phone-1",
        ])
        defer { lane.terminate() }
        #expect(await lane.waitForLine { $0.hasPrefix("session ") } != nil, "stderr: \(lane.standardError)")
        lane.send("discover")
        #expect(await lane.waitForLine { $0.hasPrefix("reader ") && $0.contains("reader_id=\(reader)") } != nil, "\(lane.output)")
        lane.send("connect \(reader)")
        let connected = try #require(await lane.waitForLine(timeout: .seconds(20)) { $0.hasPrefix("connected ") }, "\(lane.output)")
        // The events travel on the session's stream, beside the connect's answer.
        #expect(await lane.waitForLine { $0.hasPrefix("update_progress ") && $0.contains("progress=1.0") } != nil, "\(lane.output)")
        #expect(lane.output.contains { $0.hasPrefix("update_started ") && $0.contains("version=1.1.0") && $0.contains("required=true") }, "\(lane.output)")
        let progress = lane.output.filter { $0.hasPrefix("update_progress ") }.compactMap { OutputLine.parse($0)?["progress"] }
        #expect(progress == ["0.0", "0.25", "0.5", "0.75", "1.0"], "\(lane.output)")
        #expect(OutputLine.parse(connected)?["available_update"] == nil, "\(connected)")
        #expect(await simulator.waitForLine { $0.hasPrefix("updated serial=MOB-README version=1.1.0") } != nil)

        let after = try await ctl(["readers", "list"])
        let row = try #require(after.output.first { $0.hasPrefix(reader) }, "\(after.output)")
        #expect(row.contains("mobile") && row.contains("Floor lane (phone-1)") && row.contains("1.1.0") && !row.contains("(required)"), "\(after.output)")
        let removed = try await ctl(["updates", "remove", "--device-type", "mobile", "--version", "1.1.0"])
        #expect(removed.output.first == "removed mobile 1.1.0")

        // An optional update added while the lane is connected: reported at once, installed on request.
        _ = try await ctl(["updates", "add", "--device-type", "mobile", "--version", "1.2.0"])
        #expect(await lane.waitForLine { $0.hasPrefix("update_available ") && $0.contains("version=1.2.0") && $0.contains("required=false") } != nil, "\(lane.output)")
        lane.send("install-update")
        let installed = try #require(await lane.waitForLine(timeout: .seconds(20)) { $0.hasPrefix("update_installed ") }, "\(lane.output)")
        #expect(OutputLine.parse(installed)?["version"] == "1.2.0")

        lane.send("quit")
        simulator.send("quit")
        #expect(await lane.waitForExit() == 0)
        #expect(await simulator.waitForExit() == 0)
        #expect(await readme.stop() == 0)
    }
}
