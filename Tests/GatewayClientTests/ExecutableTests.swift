import Foundation
import GatewayCommandLine
import GatewayTestSupport
import GatewayWire
import Testing

/// reader-sim and gatewayctl as real child processes: help, usage errors, exit codes, and
/// reader-sim's stdin/stdout protocol against a fake ReaderLink server over real TLS.
@Suite("reader-sim and gatewayctl processes")
struct ExecutableTests {
    @Test("--help exits 0 and explains the line protocols; bad options exit 64")
    func helpAndUsage() async throws {
        let help = try await ChildProcess.start("reader-sim", ["--help"])
        #expect(await help.waitForExit() == 0)
        #expect(help.output.contains { $0.contains("present SERIAL BRAND LAST4") })
        #expect(help.output.contains { $0.contains("decline SERIAL [CODE] [confirm]") })
        let bad = try await ChildProcess.start("reader-sim", ["--count", "0"])
        #expect(await bad.waitForExit() == 64)
        let ctlHelp = try await ChildProcess.start("gatewayctl", ["--help"])
        #expect(await ctlHelp.waitForExit() == 0)
        #expect(ctlHelp.output.contains { $0.contains("owners [--location LOC]") })
        let noCommand = try await ChildProcess.start("gatewayctl", [], environment: ["GATEWAYCTL_SECRET_KEY": "sk_x"])
        #expect(await noCommand.waitForExit() == 64)
        #expect(noCommand.standardError.contains("no command given"))
    }

    @Test("gatewayctl: nothing listening is 69, an unreadable CA file is 64")
    func gatewayctlExitCodes() async throws {
        let unavailable = try await ChildProcess.start("gatewayctl", ["--gateway", "127.0.0.1:1", "owners"], environment: ["GATEWAYCTL_SECRET_KEY": "sk_x"])
        #expect(await unavailable.waitForExit() == 69)
        let badCA = try await ChildProcess.start("gatewayctl", ["--ca", "/nonexistent/ca.pem", "owners"], environment: ["GATEWAYCTL_SECRET_KEY": "sk_x"])
        #expect(await badCA.waitForExit() == 64)
    }

    /// Each way reader-sim failed this: its `DispatchSource` handlers, main-actor closures of
    /// top-level code run on a global queue, trapped in Swift's isolation check (SIGILL, no
    /// `stopped` line); a signal sent right after `started` could be dropped before the source
    /// was registered (under load); `exit` beside the running reader loops crashed (status 139).
    @Test("SIGTERM and SIGINT stop reader-sim, with smart readers or Bluetooth ones: a stopped line and exit 0", arguments: [SIGTERM, SIGINT])
    func readerSimulatorStopsOnASignal(signal: Int32) async throws {
        let name = signal == SIGINT ? "INT" : "TERM"
        let smart = try await ChildProcess.start("reader-sim", ["--gateway", "127.0.0.1:1", "--serial", "SIG-1", "--reconnect-delay", "1s"])
        // `started` comes after the handlers are in place.
        #expect(await smart.waitForLine { $0.hasPrefix("started ") } != nil, "stderr: \(smart.standardError)")
        smart.signal(signal)
        let smartStatus = await smart.waitForExit()
        #expect(smartStatus == 0, "exit \(smartStatus.map(String.init) ?? "none"); stderr: \(smart.standardError)")
        #expect(smart.output.contains { $0.hasPrefix("stopped ") && $0.contains("signal=\(name)") }, "\(smart.output)")

        let bluetooth = try await ChildProcess.start("reader-sim", [
            "--bluetooth-air", NSTemporaryDirectory() + "rg-air-\(UInt32.random(in: 0...UInt32.max)).sock", "--bluetooth-readers", "wisepad3:WPC3-0009",
        ])
        #expect(await bluetooth.waitForLine { $0.hasPrefix("started ") } != nil, "stderr: \(bluetooth.standardError)")
        bluetooth.signal(signal)
        let bluetoothStatus = await bluetooth.waitForExit()
        #expect(bluetoothStatus == 0, "exit \(bluetoothStatus.map(String.init) ?? "none"); stderr: \(bluetooth.standardError)")
        #expect(bluetooth.output.contains { $0.hasPrefix("stopped ") && $0.contains("signal=\(name)") }, "\(bluetooth.output)")
    }

    @Test("reader-sim: registration code, credential, collect with a presented card, silent, drop and re-attach")
    func readerSimulatorProtocol() async throws {
        let server = try EchoServer()
        let certificates = ClientTestCertificates.shared
        let sim = try await ChildProcess.start("reader-sim", [
            "--gateway", "127.0.0.1:\(server.port)", "--ca", certificates.caPath, "--serial", "SIM-A",
            "--heartbeat-interval", "100ms", "--collect-duration", "50ms", "--reconnect-delay", "100ms",
        ])
        defer { sim.terminate() }

        let codeLine = try #require(await sim.waitForLine { $0.hasPrefix("registration_code ") })
        #expect(OutputLine.parse(codeLine)?["serial"] == "SIM-A")
        #expect(OutputLine.parse(codeLine)?["code"] == "TEST-CODE")

        // The "admin" registers the code: the reader gets its credential.
        var registered = ReaderGatewayV1.RegistrationState()
        registered.registered = true
        registered.readerID = "tmr_A"
        registered.label = "Lane 1"
        registered.locationID = "tml_1"
        registered.readerCredential = "rcr_secret"
        var downlink = ReaderGatewayV1.ReaderDownlink()
        downlink.message = .registration(registered)
        server.sendDownlink(downlink)
        #expect(await sim.waitForLine { $0.hasPrefix("registered ") && $0.contains("reader_id=tmr_A") } != nil)
        #expect(await sim.waitForLine { $0.hasPrefix("online ") } != nil)
        #expect(await eventually { server.snapshot.uplinks.contains { if case .heartbeat? = $0.message { true } else { false } } })

        // A collect reads the card presented on stdin.
        sim.send("present SIM-A mastercard 4444")
        #expect(await sim.waitForLine { $0.hasPrefix("card_ready ") } != nil)
        var params = ReaderGatewayV1.CollectPaymentMethodParams()
        params.amount = 1_250
        params.currency = "usd"
        var command = ReaderGatewayV1.ReaderCommand()
        command.commandID = 7
        command.command = .collectPaymentMethod(params)
        downlink.message = .command(command)
        server.sendDownlink(downlink)
        let result = await eventually {
            server.snapshot.uplinks.contains {
                guard case .commandResult(let result)? = $0.message, result.commandID == 7,
                      case .paymentMethod(let method)? = result.result else { return false }
                return method.brand == "mastercard" && method.last4 == "4444"
            }
        }
        #expect(result)
        #expect(await eventually {
            server.snapshot.uplinks.contains { if case .heartbeat(let beat)? = $0.message { beat.activity == .collecting } else { false } }
        })

        // `decline SERIAL CODE`: the next collect fails with CARD_DECLINED and that code;
        // `decline SERIAL`: generic_decline; the collect after them reads a card again.
        func collect(_ id: UInt64) {
            command.commandID = id
            downlink.message = .command(command)
            server.sendDownlink(downlink)
        }
        func answer(_ id: UInt64) async -> ReaderGatewayV1.CommandResult? {
            guard await eventually({ server.snapshot.uplinks.contains { if case .commandResult(let result)? = $0.message { result.commandID == id } else { false } } }) else {
                return nil
            }
            return server.snapshot.uplinks.lazy.compactMap { if case .commandResult(let result)? = $0.message, result.commandID == id { result } else { nil } }.first
        }
        sim.send("decline SIM-A insufficient_funds")
        #expect(await sim.waitForLine { $0.hasPrefix("card_ready ") && $0.contains("decline_code=insufficient_funds") } != nil)
        collect(8)
        let declined = try #require(await answer(8)?.status)
        #expect(declined.reason == .cardDeclined && declined.code == .failedPrecondition && declined.declineCode == "insufficient_funds", "\(declined)")
        #expect(await sim.waitForLine { $0.hasPrefix("result ") && $0.contains("id=8") && $0.contains("status=CARD_DECLINED") && $0.contains("decline_code=insufficient_funds") } != nil)
        sim.send("decline SIM-A")
        #expect(await sim.waitForLine { $0.hasPrefix("card_ready ") && $0.contains("decline_code=generic_decline") } != nil)
        collect(9)
        let generic = try #require(await answer(9)?.status)
        #expect(generic.reason == .cardDeclined && generic.declineCode == "generic_decline", "\(generic)")
        collect(10)
        let approved = try #require(await answer(10))
        #expect((approved.status?.code ?? .ok) == .ok, "\(approved)")
        if case .paymentMethod(let method)? = approved.result { #expect(method.brand == "visa") } else { Issue.record("no card: \(approved)") }
        // `decline SERIAL CODE confirm`: the next confirm is declined; the one after succeeds.
        sim.send("decline SIM-A do_not_honor confirm")
        #expect(await sim.waitForLine { $0.hasPrefix("confirm_will_decline ") && $0.contains("decline_code=do_not_honor") } != nil)
        func confirm(_ id: UInt64) {
            var params = ReaderGatewayV1.ConfirmPaymentIntentParams()
            params.paymentIntentID = "pi_sim"
            var confirm = ReaderGatewayV1.ReaderCommand()
            confirm.commandID = id
            confirm.command = .confirmPaymentIntent(params)
            downlink.message = .command(confirm)
            server.sendDownlink(downlink)
        }
        confirm(11)
        let refused = try #require(await answer(11)?.status)
        #expect(refused.reason == .cardDeclined && refused.declineCode == "do_not_honor", "\(refused)")
        confirm(12)
        let succeeded = try #require(await answer(12))
        #expect((succeeded.status?.code ?? .ok) == .ok, "\(succeeded)")
        if case .paymentIntent(let intent)? = succeeded.result { #expect(intent.status == "succeeded") } else { Issue.record("no payment: \(succeeded)") }

        // Silent: no heartbeats while the connection stays up.
        sim.send("silent SIM-A")
        let silentLine = try #require(await sim.waitForLine { $0.hasPrefix("silent ") })
        let sentBeforeSilence = try #require(OutputLine.parse(silentLine)?["heartbeats_sent"].flatMap { Int($0) })
        func heartbeatsReceived() -> Int { server.snapshot.uplinks.filter { if case .heartbeat? = $0.message { true } else { false } }.count }
        // Every heartbeat handed over before the silence arrives (one may still be in flight)...
        #expect(await eventually { heartbeatsReceived() == sentBeforeSilence })
        // ...and none after it, over six heartbeat intervals.
        try await Task.sleep(for: .milliseconds(600))
        let heartbeatsLater = heartbeatsReceived()
        #expect(heartbeatsLater == sentBeforeSilence)
        sim.send("wake SIM-A")
        #expect(await eventually { server.snapshot.uplinks.filter { if case .heartbeat? = $0.message { true } else { false } }.count > heartbeatsLater })

        // Drop: the link ends and the reader re-attaches with its credential.
        sim.send("drop SIM-A 100ms")
        #expect(await sim.waitForLine { $0.hasPrefix("offline ") } != nil)
        #expect(await eventually { server.snapshot.attaches >= 2 })
        let hellos = server.snapshot.uplinks.compactMap { if case .hello(let hello)? = $0.message { hello } else { nil } }
        #expect(hellos.last?.readerCredential == "rcr_secret")
        #expect(hellos.last?.serialNumber == "SIM-A")

        sim.send("quit")
        #expect(await sim.waitForExit() == 0)
        await server.stop()
    }
}
