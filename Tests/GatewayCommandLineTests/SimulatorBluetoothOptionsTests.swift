import GatewayCommandLine
import GatewayCore
import GatewayWire
import Testing

@Suite("reader-sim: Bluetooth readers in a shared air, and the device types it refuses")
struct SimulatorBluetoothOptionsTests {
    @Test("--bluetooth-air hosts the readers of --bluetooth-readers, or of --serial with a Bluetooth --device-type")
    func hostsBluetoothReaders() throws {
        let listed = try SimulatorConfiguration.parse(
            arguments: ["--bluetooth-air", "air.sock", "--bluetooth-readers", "wisepad3:wpc3-0001,m2:STRM2-0002"], environment: [:]
        )
        #expect(listed.bluetoothAirPath == "air.sock")
        #expect(listed.bluetoothReaders == [
            SimulatedBluetoothReaderSpec(deviceType: .bbposWisepad3, serialNumber: "WPC3-0001"),
            SimulatedBluetoothReaderSpec(deviceType: .stripeM2, serialNumber: "STRM2-0002"),
        ])
        // Bluetooth readers' own defaults: the version the update walkthroughs start from, and
        // a drain per simulated hour.
        #expect(listed.softwareVersion == "2.4.0")
        #expect(listed.batteryDrain == 0.01)
        #expect(listed.securityRebootAfter == .seconds(24 * 3600))

        let typed = try SimulatorConfiguration.parse(arguments: [
            "--bluetooth-air", "air.sock", "--device-type", "bbpos_wisepad3", "--serial", "WPC3-0001,WPC3-0002", "--battery-drain", "0.05",
            "--software-version", "2.5.0", "--security-reboot-after", "2h",
        ], environment: [:])
        #expect(typed.bluetoothReaders.map(\.serialNumber) == ["WPC3-0001", "WPC3-0002"])
        #expect(typed.bluetoothReaders.allSatisfy { $0.deviceType == .bbposWisepad3 })
        #expect(typed.batteryDrain == 0.05)
        #expect(typed.softwareVersion == "2.5.0")
        #expect(typed.securityRebootAfter == .seconds(7200))
        let alias = try SimulatorConfiguration.parse(arguments: ["--bluetooth-air", "air.sock", "--device-type", "chipper2x"], environment: [:])
        #expect(alias.bluetoothReaders.first?.deviceType == .bbposChipper2xBt)

        // Smart readers are unchanged, and so is `mobile`: a generic reader on its own TLS link.
        let smart = try SimulatorConfiguration.parse(arguments: [], environment: [:])
        #expect(smart.bluetoothAirPath == nil && smart.bluetoothReaders.isEmpty)
        #expect(smart.softwareVersion == "2.20.1.0")
        let mobile = try SimulatorConfiguration.parse(arguments: ["--device-type", "mobile"], environment: [:])
        #expect(mobile.deviceType == .mobile && mobile.bluetoothReaders.isEmpty)
    }

    @Test("refusals say what to run instead", arguments: [
        (["--device-type", "tap_to_pay"], "tap-to-pay [MODEL OS_VERSION]"),
        (["--bluetooth-air", "air.sock", "--device-type", "mobile"], "is a smart reader"),
        (["--device-type", "bbpos_wisepad3"], "--bluetooth-air PATH"),
        (["--bluetooth-readers", "wisepad3:WPC3-0001"], "--bluetooth-air PATH"),
        (["--bluetooth-air", "air.sock"], "hosts no reader"),
        (["--bluetooth-air", "air.sock", "--device-type", "stripe_s700"], "is a smart reader"),
        (["--bluetooth-air", "air.sock", "--bluetooth-readers", "toaster:T-1"], "MODEL:SERIAL"),
        (["--bluetooth-air", "air.sock", "--bluetooth-readers", "m2:A,wisepad3:A"], "distinct serial numbers"),
        (["--bluetooth-air", "air.sock", "--bluetooth-readers", "m2:A", "--battery", "none"], "run on batteries"),
    ])
    func refusals(arguments: [String], hint: String) {
        do {
            _ = try SimulatorConfiguration.parse(arguments: arguments, environment: [:])
            Issue.record("\(arguments) parsed")
        } catch {
            #expect("\(error)".contains(hint), "\(error)")
        }
    }

    @Test("Bluetooth readers' stdin commands", arguments: [
        ("power WPC3-0001 off", SimulatorCommand.power(target: "WPC3-0001", on: false)),
        ("power all on", .power(target: "all", on: true)),
        ("range WPC3-0001 out", .range(target: "WPC3-0001", inRange: false)),
        ("idle WPC3-0001", .idle(target: "WPC3-0001")),
        ("confirm WPC3-0001", .answerPairing(target: "WPC3-0001", accepted: true)),
        ("reject WPC3-0001", .answerPairing(target: "WPC3-0001", accepted: false)),
        ("hours 24", .hours(24)),
        ("hours all 1.5", .hours(1.5)),
    ])
    func bluetoothCommands(line: String, expected: SimulatorCommand) throws {
        let command = try SimulatorCommand.parse(line)
        #expect(command == expected)
        #expect(command?.isBluetoothOnly == true)
        #expect(command?.isSmartReaderOnly == false)
    }

    @Test("malformed Bluetooth commands say what was expected", arguments: [
        "power WPC3-0001", "power WPC3-0001 maybe", "range WPC3-0001 near", "hours", "hours -1", "hours WPC3-0001 2", "confirm",
    ])
    func rejectsBluetoothCommands(line: String) {
        #expect(throws: SimulatorCommand.ParseError.self) { try SimulatorCommand.parse(line) }
    }

    @Test("pos-lane takes --bluetooth-air or --bluetooth-readers, not both")
    func laneAirOption() throws {
        let base = ["--secret-key", "sk_test", "--location", "tml_1"]
        let lane = try #require(try LaneConfiguration.parse(arguments: base + ["--bluetooth-air", "air.sock"], environment: [:]))
        #expect(lane.bluetoothAirPath == "air.sock")
        #expect(throws: OptionsError.self) {
            try LaneConfiguration.parse(arguments: base + ["--bluetooth-air", "air.sock", "--bluetooth-readers", "m2:A"], environment: [:])
        }
    }
}
