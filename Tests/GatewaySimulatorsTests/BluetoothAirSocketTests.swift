import Foundation
import GatewayClient
@testable import GatewaySimulators
import GatewayCore
import GatewayTestKit
import GatewayWire
import Synchronization
import Testing

/// The shared air's Unix socket: a ``BluetoothAirSocketRadio`` against a
/// ``SimulatedBluetoothAirServer`` behaves as a ``SimulatedRadio`` does, and bad input on the
/// socket is answered precisely without disturbing anyone else.
@Suite("Bluetooth air over a Unix socket", .serialized)
struct BluetoothAirSocketTests {
    /// A served air at a fresh path, with its events collected.
    final class Served: Sendable {
        let air: SimulatedBluetoothAir
        let server: SimulatedBluetoothAirServer
        let path: String
        let log = EventLog()

        final class EventLog: Sendable {
            let events = Mutex<[String]>([])
        }

        init(_ options: SimulatedBluetoothAir.Options = .init(updateDuration: .milliseconds(40)), failEveryInstall: Bool = false) throws {
            let air = SimulatedBluetoothAir(options: options)
            self.air = air
            path = NSTemporaryDirectory() + "air-\(UInt32.random(in: 0...UInt32.max)).sock"
            let log = self.log
            server = try SimulatedBluetoothAirServer(air: air, path: path) { serial in
                if failEveryInstall { air.failNextUpdate(serial) }
            } onEvent: { event in
                log.events.withLock { $0.append("\(event)") }
            }
        }

        func saw(_ fragment: String) async -> Bool {
            for _ in 0..<4_000 {
                if log.events.withLock({ $0.contains { $0.contains(fragment) } }) { return true }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return false
        }

        deinit { server.close() }
    }

    @Test("scan, numeric comparison, a collect and an update with progress, a power-off's reason: as with an in-process radio")
    func behavesAsTheInProcessRadio() async throws {
        let served = try Served()
        served.air.addReader(serialNumber: "WPC3-1", deviceType: .bbposWisepad3)
        let radio = try BluetoothAirSocketRadio(path: served.path, deviceID: "phone-1")
        var heard = radio.advertisements().makeAsyncIterator()
        #expect(await heard.next()?.map(\.serialNumber) == ["WPC3-1"])
        #expect(try await radio.readBatteryLevel(serialNumber: "WPC3-1") == 0.9)

        let peripheral = try await radio.connect(serialNumber: "WPC3-1", timeout: .seconds(30))
        #expect(peripheral.deviceType == .wisePad3)
        #expect(peripheral.softwareVersion == "2.4.0")
        #expect(!peripheral.isBonded)
        // Connected: it stops advertising, to this device's running scan and to any other.
        #expect(await heard.next() == [])
        let other = try BluetoothAirSocketRadio(path: served.path, deviceID: "phone-2")
        var otherHeard = other.advertisements().makeAsyncIterator()
        #expect(await otherHeard.next() == [])

        let passkey = peripheral.beginPairing()
        #expect(passkey.count == 6 && served.air.displayedPasskey("WPC3-1") == passkey)
        served.air.answerPairingOnReader("WPC3-1", accepted: true)
        let answer = await peripheral.readerPairingAnswer()
        #expect(answer.passkey == passkey && answer.accepted)
        peripheral.bond()
        #expect(peripheral.isBonded)

        var collect = ReaderGatewayV1.ReaderCommand()
        collect.commandID = 7
        var params = ReaderGatewayV1.CollectPaymentMethodParams()
        params.amount = 1250
        collect.command = .collectPaymentMethod(params)
        served.air.presentCard("WPC3-1", .init(brand: "mastercard", last4: "4444"))
        let collected = await peripheral.run(collect) { _ in }
        #expect(collected.commandID == 7)
        #expect(collected.status == nil || collected.status?.code == .ok, "\(collected)")

        var install = ReaderGatewayV1.ReaderCommand()
        install.commandID = 8
        var update = ReaderGatewayV1.ReaderCommand.InstallUpdate()
        update.version = "2.5.0"
        install.command = .installUpdate(update)
        let progress = Mutex<[Float]>([])
        let installed = await peripheral.run(install) { fraction in progress.withLock { $0.append(fraction) } }
        #expect(installed.status == nil || installed.status?.code == .ok, "\(installed)")
        #expect(progress.withLock { $0 } == [0, 0.25, 0.5, 0.75, 1])
        #expect(peripheral.softwareVersion == "2.5.0")

        served.air.setPower("WPC3-1", on: false)
        #expect(await peripheral.disconnected() == .poweredOff)
        #expect(await served.saw("MOBILE_DISCONNECT_REASON_POWERED_OFF"))
    }

    @Test("the server's install hook fails every install (reader-sim's --fail-updates); a CancelUpdate stops a running install")
    func failedAndCanceledInstalls() async throws {
        let served = try Served(failEveryInstall: true)
        served.air.addReader(serialNumber: "M2-1", deviceType: .stripeM2)
        let radio = try BluetoothAirSocketRadio(path: served.path, deviceID: "phone-1")
        let peripheral = try await radio.connect(serialNumber: "M2-1", timeout: .seconds(30))
        func install(_ id: UInt64) -> ReaderGatewayV1.ReaderCommand {
            var command = ReaderGatewayV1.ReaderCommand()
            command.commandID = id
            var update = ReaderGatewayV1.ReaderCommand.InstallUpdate()
            update.version = "2.5.0"
            command.command = .installUpdate(update)
            return command
        }
        // Fails halfway, every time: progress 0, 0.25, 0.5, then the failure.
        for id: UInt64 in [1, 2] {
            let progress = Mutex<[Float]>([])
            let failed = await peripheral.run(install(id)) { fraction in progress.withLock { $0.append(fraction) } }
            #expect(failed.status?.reason == .readerSoftwareUpdateFailed, "\(failed)")
            #expect(progress.withLock { $0 } == [0, 0.25, 0.5])
        }
        #expect(peripheral.softwareVersion == "2.4.0")

        // A cancel stops a running install (the hook is off for this reader's next install).
        let quiet = try Served(.init(updateDuration: .seconds(2)))
        quiet.air.addReader(serialNumber: "M2-2", deviceType: .stripeM2)
        let other = try BluetoothAirSocketRadio(path: quiet.path, deviceID: "phone-1")
        let installing = try await other.connect(serialNumber: "M2-2", timeout: .seconds(30))
        let started = Latch()
        let running = Task { await installing.run(install(3)) { _ in started.set() } }
        #expect(await started.wait(atMost: .seconds(10)))
        var cancel = ReaderGatewayV1.ReaderCommand()
        cancel.commandID = 4
        cancel.command = .cancelUpdate(.init())
        let canceled = await installing.run(cancel) { _ in }
        #expect(canceled.status == nil || canceled.status?.code == .ok, "\(canceled)")
        #expect(await running.value.status?.reason == .commandCanceled)
        #expect(installing.softwareVersion == "2.4.0")
    }

    @Test("a device whose process goes away releases its Bluetooth connection (bluetoothSignalLost); another device connects")
    func deviceThatGoesAway() async throws {
        let served = try Served()
        served.air.addReader(serialNumber: "M2-1", deviceType: .stripeM2)
        var phone: BluetoothAirSocketRadio? = try BluetoothAirSocketRadio(path: served.path, deviceID: "phone-1")
        _ = try await phone!.connect(serialNumber: "M2-1", timeout: .seconds(30))
        #expect(served.air.status("M2-1")?.connectedTo == "phone-1")
        phone = nil
        #expect(await served.saw("MOBILE_DISCONNECT_REASON_BLUETOOTH_SIGNAL_LOST"))
        #expect(served.air.status("M2-1")?.connectedTo == nil)
        let other = try BluetoothAirSocketRadio(path: served.path, deviceID: "phone-2")
        let peripheral = try await other.connect(serialNumber: "M2-1", timeout: .seconds(30))
        #expect(served.air.status("M2-1")?.connectedTo == "phone-2")
        peripheral.disconnect()
        #expect(await peripheral.disconnected() == .disconnectRequested)
    }

    @Test("the air going away ends the device's connections as a lost signal and fails its requests")
    func airThatGoesAway() async throws {
        let served = try Served()
        served.air.addReader(serialNumber: "M2-1", deviceType: .stripeM2)
        let radio = try BluetoothAirSocketRadio(path: served.path, deviceID: "phone-1")
        let peripheral = try await radio.connect(serialNumber: "M2-1", timeout: .seconds(30))
        // What the simulator's death looks like to the device: its end of the socket closes.
        served.server.close()
        #expect(await peripheral.disconnected() == .bluetoothSignalLost)
        do {
            _ = try await radio.connect(serialNumber: "M2-1", timeout: .seconds(1))
            Issue.record("a connect through a closed air succeeded")
        } catch {
            #expect(error.code == .disconnected)
        }
    }

    @Test("a socket whose reading ended never touches its descriptor's number again: a late shutDown, close or send leaves the socket that got the number alone")
    func closedSocketLeavesItsNumberAlone() async throws {
        for _ in 0..<100 {
            var ends: [Int32] = [-1, -1]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
            let socket = BluetoothAirSocket(descriptor: ends[0])
            await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
                socket.startReading(onMessage: { _ in }, onEnd: { _ in ended.resume() })
                close(ends[1])
            }
            // The reading thread closed the descriptor before calling onEnd; the next socket
            // this process opens may get its number.
            guard let newcomer = Self.pair(at: socket.descriptor) else { continue }
            defer { newcomer.close() }
            socket.shutDown()
            socket.close()
            #expect(!socket.send(.hello(device: "late")))
            #expect(newcomer.carriesBytesBothWays())
            return
        }
        Issue.record("another thread took the closed descriptor's number first in each of 100 tries")
    }

    @Test("a server closed twice leaves alone the socket that got its listener's number after the first close")
    func serverClosedTwiceLeavesTheNumberAlone() async throws {
        for _ in 0..<100 {
            let served = try Served()
            served.server.close()
            #expect(await eventually { served.server.isListenerClosed })
            guard let newcomer = Self.pair(at: served.server.listener) else { continue }
            defer { newcomer.close() }
            served.server.close()
            #expect(newcomer.carriesBytesBothWays())
            return
        }
        Issue.record("another thread took the closed listener's number first in each of 100 tries")
    }

    /// A connected Unix socket pair whose first end holds descriptor number `number`, or nil when
    /// another thread of this process took that number first.
    static func pair(at number: Int32) -> SocketPair? {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { return nil }
        if ends[0] == number { return SocketPair(placed: ends[0], peer: ends[1]) }
        if ends[1] == number { return SocketPair(placed: ends[1], peer: ends[0]) }
        // The lowest free number at or above `number`: `number` itself when it is free.
        let placed = fcntl(ends[0], F_DUPFD_CLOEXEC, number)
        close(ends[0])
        guard placed == number else {
            if placed >= 0 { close(placed) }
            close(ends[1])
            return nil
        }
        return SocketPair(placed: placed, peer: ends[1])
    }

    struct SocketPair {
        let placed: Int32
        let peer: Int32

        /// One byte each way, read back without waiting (a Unix socket's bytes are there at once).
        func carriesBytesBothWays() -> Bool {
            func passes(from: Int32, to: Int32) -> Bool {
                var byte: UInt8 = 0x5A
                guard Glibc.send(from, &byte, 1, Int32(MSG_NOSIGNAL)) == 1 else { return false }
                byte = 0
                return recv(to, &byte, 1, Int32(MSG_DONTWAIT)) == 1 && byte == 0x5A
            }
            return passes(from: placed, to: peer) && passes(from: peer, to: placed)
        }

        func close() {
            Glibc.close(placed)
            Glibc.close(peer)
        }
    }

    @Test("malformed input gets a precise failure and the socket carries on; a broken framing closes that socket alone")
    func badInput() async throws {
        let served = try Served()
        served.air.addReader(serialNumber: "M2-1", deviceType: .stripeM2)
        let bystander = try BluetoothAirSocketRadio(path: served.path, deviceID: "phone-2")

        let replies = try await onOwnThread { () throws -> [String] in
            let socket = try BluetoothAirSocket.connect(path: served.path)
            defer { socket.close() }
            func write(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { send(socket.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
            var frames = BluetoothAirCodec.FrameReader()
            func readMessage() throws -> BluetoothAirMessage? {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    if let payload = try frames.next() { return try BluetoothAirCodec.decode(payload[...]) }
                    let count = buffer.withUnsafeMutableBytes { recv(socket.descriptor, $0.baseAddress, $0.count, 0) }
                    guard count > 0 else { return nil }
                    frames.append(buffer[0..<count])
                }
            }
            var seen: [String] = []
            // Before hello.
            write(BluetoothAirCodec.frame(.watch(call: 1)))
            seen.append("\(try readMessage().map { "\($0)" } ?? "end")")
            write(BluetoothAirCodec.frame(.hello(device: "prober")))
            seen.append("\(try readMessage().map { "\($0)" } ?? "end")")
            // An unknown type, a truncated field, a message only the air sends, an unknown handle.
            write([0, 0, 0, 1, 99])
            seen.append("\(try readMessage().map { "\($0)" } ?? "end")")
            write([0, 0, 0, 3, 4, 0, 0])
            seen.append("\(try readMessage().map { "\($0)" } ?? "end")")
            write(BluetoothAirCodec.frame(.welcome))
            seen.append("\(try readMessage().map { "\($0)" } ?? "end")")
            write(BluetoothAirCodec.frame(.readState(call: 5, handle: 4_000)))
            seen.append("\(try readMessage().map { "\($0)" } ?? "end")")
            // Still served after all that.
            write(BluetoothAirCodec.frame(.readBattery(call: 6, serial: "M2-1")))
            seen.append("\(try readMessage().map { "\($0)" } ?? "end")")
            // A frame announcing 4 GiB: the framing is lost, the socket closes after saying why.
            write([0xFF, 0xFF, 0xFF, 0xFF, 1])
            seen.append("\(try readMessage().map { "\($0)" } ?? "end")")
            seen.append("\(try readMessage().map { "\($0)" } ?? "end")")
            return seen
        }
        #expect(replies[0].contains("the first message must be hello"), "\(replies[0])")
        #expect(replies[1] == "welcome", "\(replies[1])")
        #expect(replies[2].contains("message type 99 is unknown"), "\(replies[2])")
        #expect(replies[3].contains("the frame ends inside read_battery") && replies[3].contains("4 bytes needed, 2 left"), "\(replies[3])")
        #expect(replies[4].contains("only the air sends"), "\(replies[4])")
        #expect(replies[5].contains("no open Bluetooth connection 4000"), "\(replies[5])")
        #expect(replies[6].contains("batteryLevel(call: 6"), "\(replies[6])")
        #expect(replies[7].contains("1 to 65536 bytes") && replies[7].contains("closing this connection"), "\(replies[7])")
        #expect(replies[8] == "end", "\(replies[8])")
        #expect(await served.saw("deviceLeft(device: \"prober\""))

        // Everyone else is still served.
        let peripheral = try await bystander.connect(serialNumber: "M2-1", timeout: .seconds(30))
        #expect(peripheral.serialNumber == "M2-1")
    }
}
