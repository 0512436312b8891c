import Foundation
import GatewayClient
import GatewayService
import GatewayTestKit
import GatewayTestSupport
import GatewayWire
import Testing

/// The fleet view through `gatewayctl` as a process: the software update catalog managed with
/// `gatewayctl updates`, and `gatewayctl readers list` showing a mobile reader beside a smart
/// one with device type, location, holder, battery, software version, pending update and last seen.
@Suite("fleet view and gatewayctl updates", .serialized)
struct FleetViewTests {
    /// Runs gatewayctl against the fixture's gateway; its exit status and output.
    static func ctl(_ fixture: UpdateFixture, _ arguments: [String]) async throws -> (status: Int32?, output: String) {
        try await LoggedProcess.run(
            PackageExecutables.path("gatewayctl"),
            ["--gateway", "127.0.0.1:\(fixture.harness.port)", "--ca", fixture.harness.caPath, "--server-name", "localhost",
             "--secret-key", fixture.harness.account.secretKey] + arguments,
            logPath: fixture.harness.directory + "/gatewayctl-\(UUID().uuidString).log"
        )
    }

    static func json(_ output: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(output.utf8))
    }

    @Test("gatewayctl updates add, list (table and --json), remove; bad input exits 65 saying what to fix")
    func gatewayctlUpdates() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-CTL")
        let added = try await Self.ctl(fixture, [
            "updates", "add", "--device-type", "mobile", "--version", "1.1.0", "--components", "firmware,config",
            "--duration", "one_to_two_minutes", "--required-at", "2030-01-01T00:00:00Z",
        ])
        #expect(added.status == 0, "\(added.output)")
        #expect(added.output.hasPrefix("added mobile 1.1.0"), "\(added.output)")
        let again = try await Self.ctl(fixture, ["--json", "updates", "add", "--device-type", "mobile", "--version", "1.1.0"])
        #expect(again.status == 0, "\(again.output)")
        #expect((try Self.json(again.output) as? [String: Any])?["replaced"] as? Bool == true, "\(again.output)")
        _ = try await Self.ctl(fixture, ["updates", "add", "--device-type", "mobile", "--version", "1.1.0", "--components", "firmware,config",
                                         "--duration", "one_to_two_minutes", "--required-at", "2030-01-01T00:00:00Z"])
        let table = try await Self.ctl(fixture, ["updates", "list"])
        #expect(table.status == 0)
        let header = table.output.split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.contains("DEVICE") && header.contains("VERSION") && header.contains("REQUIRED AT"), "\(table.output)")
        #expect(table.output.contains("mobile") && table.output.contains("firmware,config") && table.output.contains("one_to_two_minutes")
            && table.output.contains("2030-01-01T00:00:00Z"), "\(table.output)")
        let listed = try #require(try Self.json(try await Self.ctl(fixture, ["--json", "updates", "list"]).output) as? [[String: Any]])
        #expect(listed.count == 1)
        #expect(listed.first?["version"] as? String == "1.1.0")
        #expect(listed.first?["required_at_unix_ms"] as? Int == 1_893_456_000_000)
        #expect(listed.first?["components"] as? [String] == ["firmware", "config"])

        let bad = try await Self.ctl(fixture, ["updates", "add", "--device-type", "mobile", "--version", "1.2", "--components", "bootloader"])
        #expect(bad.status == 65, "\(bad.output)")
        #expect(bad.output.contains("unknown component"), "\(bad.output)")
        let missing = try await Self.ctl(fixture, ["updates", "remove", "--device-type", "mobile", "--version", "9.9.9"])
        #expect(missing.status == 65, "\(missing.output)")
        #expect(missing.output.contains("SOFTWARE_UPDATE_NOT_FOUND"), "\(missing.output)")
        let removed = try await Self.ctl(fixture, ["updates", "remove", "--device-type", "mobile", "--version", "1.1.0"])
        #expect(removed.status == 0, "\(removed.output)")
        #expect(removed.output.hasPrefix("removed mobile 1.1.0"), "\(removed.output)")
        #expect(try Self.json(try await Self.ctl(fixture, ["--json", "updates", "list"]).output) as? [Any] != nil)
        #expect(try await fixture.admin.listSoftwareUpdates().isEmpty)
        await fixture.stop()
    }

    @Test("readers list: a mobile reader beside a smart one, with holder, battery, version, pending update; an offline reader keeps its last battery")
    func readersListShowsTheFleet() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-FLEET", simulatorArguments: ["--battery", "0.66"])
        try await fixture.addUpdate("1.1.0", requiredAt: nil)
        // A smart reader at the same location, on mains power.
        let smart = try await UpdateFixture.startSimulator(fixture.harness, serial: "WSC-FLEET", arguments: ["--battery", "none"])
        let codeLine = try #require(await smart.waitForLine(containing: "registration_code"), "\(smart.output)")
        let smartReader = try await fixture.admin.registerReader(
            code: try #require(LoggedProcess.field("code", in: codeLine)), label: "Counter", locationID: fixture.location
        )
        let (lane, _) = try await fixture.lane("Floor 2", device: "phone-7")
        try await fixture.connect(lane)

        let table = try await Self.ctl(fixture, ["readers", "list"])
        #expect(table.status == 0, "\(table.output)")
        let lines = table.output.split(separator: "\n").map(String.init)
        let header = lines.first ?? ""
        for column in ["DEVICE", "LOCATION", "HOLDER", "BATTERY", "VERSION", "UPDATE", "LAST SEEN"] {
            #expect(header.contains(column), "no \(column) column: \(header)")
        }
        let mobileRow = lines.first { $0.hasPrefix(fixture.readerID) } ?? ""
        for cell in ["mobile", fixture.location, "Floor 2 (phone-7)", "66%", "1.0.0", "1.1.0 (optional)", "online"] {
            #expect(mobileRow.contains(cell), "no \(cell) in the mobile row: \(table.output)")
        }
        let smartRow = lines.first { $0.hasPrefix(smartReader.id) } ?? ""
        for cell in ["simulated_wisepos_e", fixture.location, "2.20.1.0", "online"] {
            #expect(smartRow.contains(cell), "no \(cell) in the smart row: \(table.output)")
        }

        let listed = try #require(try Self.json(try await Self.ctl(fixture, ["--json", "readers", "list"]).output) as? [[String: Any]])
        let mobile = try #require(listed.first { $0["id"] as? String == fixture.readerID })
        #expect(mobile["device_type"] as? String == "mobile")
        #expect(((mobile["holder"] as? [String: Any])?["lane_label"]) as? String == "Floor 2")
        #expect(((mobile["available_update"] as? [String: Any])?["version"]) as? String == "1.1.0")
        #expect(abs((mobile["battery_level"] as? Double ?? 0) - 0.66) < 0.001)
        let smartJSON = try #require(listed.first { $0["id"] as? String == smartReader.id })
        #expect(smartJSON["holder"] is NSNull)
        #expect(smartJSON["battery_level"] == nil)

        // The mobile reader goes away: the fleet still shows the battery it last reported.
        _ = await fixture.simulator.stop()
        #expect(await eventually {
            (try? await fixture.admin.getReader(fixture.readerID).reader?.networkStatus) == .offline
        })
        let offline = try #require(try await fixture.admin.getReader(fixture.readerID).reader)
        #expect(offline.batteryLevel.map { abs($0 - 0.66) < 0.001 } == true, "\(offline)")
        _ = await smart.stop()
        await fixture.stop()
    }

    @Test("reader-sim drains its battery per heartbeat, reports it, and powers off when empty")
    func batteryDrain() async throws {
        let fixture = try await UpdateFixture.start(serial: "MOB-DRAIN", simulatorArguments: ["--battery", "0.9", "--battery-drain", "0.1"])
        #expect(await eventually { fixture.simulatorLines(containing: "powered_off serial=MOB-DRAIN") == 1 })
        #expect(await eventually {
            (try? await fixture.admin.getReader(fixture.readerID).reader?.networkStatus) == .offline
        })
        // The last level written is at most the crossing of 50 % (a threshold crossing is always written).
        let offline = try #require(try await fixture.admin.getReader(fixture.readerID).reader)
        let level = try #require(offline.batteryLevel, "no battery level recorded")
        #expect(level <= 0.5, "\(level)")
        await fixture.stop()
    }
}
