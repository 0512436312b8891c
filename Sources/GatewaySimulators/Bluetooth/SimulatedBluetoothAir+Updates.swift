import GatewayWire
import Synchronization

/// Software updates on the simulated Bluetooth readers, as reader-sim's readers install them:
/// a battery at or below 50 % refuses the install; otherwise progress goes from 0 to 1 in
/// quarters over ``SimulatedBluetoothAir/Options/updateDuration``, and the reader runs the new
/// version. ``SimulatedBluetoothAir/failNextUpdate(_:)`` makes the next install fail halfway; a
/// CancelUpdate stops it at once (however long its quarters are); the Bluetooth connection
/// ending interrupts it at its next quarter.
extension SimulatedBluetoothAir {
    /// The reader's next software update fails halfway (`READER_SOFTWARE_UPDATE_FAILED`).
    public func failNextUpdate(_ serialNumber: String) {
        change { state, _ in state.readers[serialNumber]?.failNextUpdate = true }
    }

    /// The software version the reader runs now; nil for an unknown reader.
    public func softwareVersion(_ serialNumber: String) -> String? {
        state.withLock { $0.readers[serialNumber]?.advertisement.softwareVersion }
    }

    private enum InstallStep {
        case running
        case canceled
        case interrupted
    }

    private enum InstallStart {
        case refused(ReaderGatewayV1.Status)
        case started(fails: Bool)
    }

    /// Installs `version` on the reader connected through `connection`, reporting progress.
    func installUpdate(
        _ id: UInt64, _ version: String, on serial: String, connection: UInt64, progress: @Sendable (Float) -> Void
    ) async -> ReaderGatewayV1.CommandResult {
        guard !version.isEmpty else {
            return Self.result(id, ReaderGatewayV1.Status(.readerError, "the install names no version; the gateway sends the catalog's version"))
        }
        let start = state.withLock { state -> InstallStart in
            guard var reader = state.readers[serial], reader.connection?.id == connection else {
                return .refused(ReaderGatewayV1.Status(.readerError, "the reader is not connected"))
            }
            defer { state.readers[serial] = reader }
            if reader.battery <= 0.5 {
                return .refused(ReaderGatewayV1.Status(
                    .readerSoftwareUpdateFailedBatteryLow,
                    "the battery is at \(Int((reader.battery * 100).rounded())) %; charge it above 50 % to update"
                ))
            }
            if let running = reader.installing {
                return .refused(ReaderGatewayV1.Status(.readerBusy, "the reader is installing \(running.version); wait for it or cancel it"))
            }
            let fails = reader.failNextUpdate
            reader.failNextUpdate = false
            reader.installing = (id, version, false)
            return .started(fails: fails)
        }
        let fails: Bool
        switch start {
        case .refused(let status): return Self.result(id, status)
        case .started(let failing): fails = failing
        }
        let steps = 4
        let pauseKey = InstallPauses.Key(air: ObjectIdentifier(self), serial: serial, commandID: id)
        let pause = InstallPauses.shared.begin(pauseKey)
        defer { InstallPauses.shared.end(pauseKey) }
        var ended: InstallStep?
        var failed = false
        for step in 0...steps {
            let fraction = Float(step) / Float(steps)
            if fails && fraction > 0.5 {
                failed = true
                break
            }
            let now = installStep(serial, id, connection)
            guard now == .running else {
                ended = now
                break
            }
            progress(fraction)
            guard step < steps else { break }
            await pause.wait(options.updateDuration / steps)
        }
        let installed = ended == nil && !failed
        change { state, _ in
            guard state.readers[serial]?.installing?.commandID == id else { return }
            state.readers[serial]!.installing = nil
            if installed { state.readers[serial]!.advertisement.softwareVersion = version }
        }
        switch ended {
        case .canceled?:
            return Self.result(id, ReaderGatewayV1.Status(.commandCanceled, "the software update \(version) was cancelled"))
        case .interrupted?:
            return Self.result(id, ReaderGatewayV1.Status(
                .readerSoftwareUpdateFailedInterrupted, "the Bluetooth connection ended while \(version) installed; connect the reader again to retry"
            ))
        case .running?, nil:
            break
        }
        guard installed else {
            return Self.result(id, ReaderGatewayV1.Status(.readerSoftwareUpdateFailed, "the reader could not install \(version) (simulated failure)"))
        }
        var result = Self.result(id, .ok)
        result.result = .updateVersion(version)
        return result
    }

    /// Stops the reader's running install at once; the version it was installing, or empty
    /// when none was.
    func cancelUpdate(on serial: String) -> String {
        let canceled = state.withLock { state -> (commandID: UInt64, version: String)? in
            guard let installing = state.readers[serial]?.installing else { return nil }
            state.readers[serial]!.installing!.canceled = true
            return (installing.commandID, installing.version)
        }
        guard let canceled else { return "" }
        InstallPauses.shared.pause(for: InstallPauses.Key(air: ObjectIdentifier(self), serial: serial, commandID: canceled.commandID))?.cancel()
        return canceled.version
    }

    private func installStep(_ serial: String, _ id: UInt64, _ connection: UInt64) -> InstallStep {
        state.withLock { state in
            guard let reader = state.readers[serial], reader.connection?.id == connection, reader.installing?.commandID == id else { return .interrupted }
            return reader.installing!.canceled ? .canceled : .running
        }
    }
}

/// The pause between two quarters of each running install of a simulated reader, by air,
/// reader and command, so that a cancel ends it at once.
private final class InstallPauses: Sendable {
    struct Key: Hashable {
        let air: ObjectIdentifier
        let serial: String
        let commandID: UInt64
    }

    static let shared = InstallPauses()
    private let pauses = Mutex<[Key: InstallPause]>([:])

    func begin(_ key: Key) -> InstallPause {
        let pause = InstallPause()
        pauses.withLock { $0[key] = pause }
        return pause
    }

    func pause(for key: Key) -> InstallPause? {
        pauses.withLock { $0[key] }
    }

    func end(_ key: Key) {
        _ = pauses.withLock { $0.removeValue(forKey: key) }
    }
}

/// One install's pauses: each ends when its time has passed or at a cancel (and once
/// cancelled, none waits).
private final class InstallPause: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Void, Never>?
        /// Which pause is waiting: a timer of an earlier one that fires late wakes nothing.
        var pauseNumber: UInt64 = 0
        var canceled = false
    }

    private let state = Mutex(State())

    func wait(_ duration: Duration) async {
        var timer: Task<Void, Never>?
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let number = state.withLock { state -> UInt64? in
                guard !state.canceled else { return nil }
                state.pauseNumber += 1
                state.waiter = waiter
                return state.pauseNumber
            }
            guard let number else {
                waiter.resume()
                return
            }
            timer = Task { [self] in
                try? await Task.sleep(for: duration)
                state.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard state.pauseNumber == number else { return nil }
                    defer { state.waiter = nil }
                    return state.waiter
                }?.resume()
            }
        }
        timer?.cancel()
    }

    func cancel() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.canceled = true
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }
}
