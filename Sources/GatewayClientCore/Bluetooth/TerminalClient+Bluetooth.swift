import GatewayChannel
import GatewayWire

extension TerminalClient {
    /// Connects the session to a Bluetooth reader from the latest Bluetooth discovery, in
    /// four steps: the device's Bluetooth connection to the reader (with WisePad 3 numeric
    /// comparison for a new or forgotten device: ``BluetoothConnectionConfiguration/pairOnDevice``
    /// and Confirm on the reader); the gateway registers the reader to the location, bonds it
    /// to this device and issues its credential (`ConnectBluetoothReader`); the reader's link
    /// attaches on this client's connection; the session discovers and connects it as any
    /// reader. Payments then go through this client as with a smart reader.
    ///
    /// Errors: `staleDiscovery` (the reader comes from an older discovery),
    /// `bluetoothConnectTimedOut`, `bluetoothPairingFailed`,
    /// `bluetoothAlreadyPairedWithAnotherDevice`, `locationRequired`, `locationNotFound`,
    /// `alreadyConnectedToReader`.
    public func connectBluetoothReader(
        _ reader: BluetoothDiscoveredReader, radio: any BluetoothRadio, _ configuration: BluetoothConnectionConfiguration
    ) async throws -> BluetoothReaderConnection {
        try await terminalCall { try await bluetoothConnect(reader, radio: radio, configuration) }
    }

    /// ``connectBluetoothReader(_:radio:_:)``'s steps (the call layer's errors).
    private func bluetoothConnect(
        _ reader: BluetoothDiscoveredReader, radio: any BluetoothRadio, _ configuration: BluetoothConnectionConfiguration
    ) async throws -> BluetoothReaderConnection {
        if case .stale(let discovery, let latest) = feedBluetooth({ $0.discovery.checkConnect(readerFrom: reader.discoveryID) }) {
            throw RPCError(
                .staleDiscovery,
                "reader \(reader.serialNumber) comes from Bluetooth discovery \(discovery), but discovery \(latest) is newer; connect a reader from the latest discovery's results (never reuse reader objects)"
            )
        }
        guard !configuration.locationID.isEmpty else {
            throw RPCError(.locationRequired, "a Bluetooth reader is registered to a location at connect: set BluetoothConnectionConfiguration.locationID")
        }
        let peripheral: any BluetoothPeripheral
        do { peripheral = try await radio.connect(serialNumber: reader.serialNumber, timeout: configuration.connectTimeout) } catch {
            throw Self.rpcError(error, serial: reader.serialNumber)
        }
        do {
            try await pair(peripheral, configuration)
            var request = ReaderGatewayV1.ConnectBluetoothReaderRequest()
            request.sessionToken = try await sessionToken()
            request.serialNumber = peripheral.serialNumber
            request.deviceType = peripheral.deviceType.wire
            request.locationID = configuration.locationID
            request.softwareVersion = peripheral.softwareVersion
            request.autoReconnectOnUnexpectedDisconnect = configuration.autoReconnectOnUnexpectedDisconnect
            let response = try await connection.unary(ReaderGatewayV1.Sdk.connectBluetoothReader, request, timeout: callTimeout)
            guard let registered = response.reader else {
                throw RPCError(code: .internal, reason: .internal, message: "the gateway answered ConnectBluetoothReader without the reader; report this")
            }
            let link = try await BluetoothReaderLink.attach(
                on: try await connection.channel(), peripheral: peripheral, credential: response.readerCredential,
                heartbeatInterval: configuration.heartbeatInterval
            )
            let connected = BluetoothReaderConnection(reader: registered, client: self, radio: radio, credential: response.readerCredential, configuration: configuration)
            connected.serve(link, over: peripheral, firstTime: true)
            feedBluetooth { $0.connected(connected) }
            do {
                let discovered = try await discoverReaders(locationID: configuration.locationID)
                guard let own = discovered.first(where: { $0.id == registered.id }) else {
                    throw RPCError(.readerNotFound, "the Bluetooth reader was not discovered at its location; connect it again")
                }
                let answer = try await connectReader(own)
                connected.connectedDespiteRequiredUpdate(answer.requiredUpdateFailure)
            } catch {
                link.end(.disconnectRequested, reconnecting: false)
                throw error
            }
            return connected
        } catch {
            peripheral.disconnect()
            throw error
        }
    }

    /// The session resumed on a new connection (the old one dropped, and the Bluetooth
    /// readers' links with it, while the readers stayed connected over Bluetooth): each
    /// reader's link attaches again with its credential, on this replica or another, and the
    /// session keeps owning it (the gateway kept the owner through its offline bound).
    func reattachBluetoothLinks() {
        for connected in feedBluetooth({ $0.sessionResumed() }) {
            let task = Task { await connected.reattachAfterSessionResumed() }
            feedSession { $0.backgroundTaskStarted(task) }
        }
    }

    /// Reconnects on app start to the reader whose serial number the app stored after its
    /// last connect (Stripe's recipe): discover nearby readers for up to `scanTimeout`; when
    /// the stored serial appears, stop the discovery and connect it; else stop and throw
    /// `readerNotFound`.
    public func reconnectToStoredBluetoothReader(
        serialNumber: String, radio: any BluetoothRadio, scanTimeout: Duration = .seconds(10), _ configuration: BluetoothConnectionConfiguration
    ) async throws -> BluetoothReaderConnection {
        try await terminalCall {
            let discovery = try discoverBluetoothReaders(.bluetoothScan(timeout: scanTimeout), radio: radio)
            var found: BluetoothDiscoveredReader?
            for await readers in discovery.updates {
                if let match = readers.first(where: { $0.serialNumber == serialNumber }) {
                    found = match
                    break
                }
            }
            discovery.cancel()
            guard let found else {
                throw RPCError(.readerNotFound, "the stored Bluetooth reader \(serialNumber) was not found nearby within \(scanTimeout); discover readers and pick one")
            }
            return try await connectBluetoothReader(found, radio: radio, configuration)
        }
    }

    /// Numeric comparison for a WisePad 3 that does not know this device yet.
    private func pair(_ peripheral: any BluetoothPeripheral, _ configuration: BluetoothConnectionConfiguration) async throws {
        var pairing = PairingStateMachine()
        let passkey = peripheral.deviceType.wire.pairsByNumericComparison && !peripheral.isBonded ? peripheral.beginPairing() : ""
        switch pairing.begin(deviceType: peripheral.deviceType.wire, bonded: peripheral.isBonded, passkey: passkey) {
        case .notRequired:
            return
        case .fail(let failure):
            throw Self.pairingFailed(failure, serial: peripheral.serialNumber)
        case .showPasskey(let shown):
            // The reader's answer is awaited only if the device paired (a declined pairing
            // ends the Bluetooth connection, which ends the reader's wait too).
            let onReader = Task { await peripheral.readerPairingAnswer() }
            let onDevice = await configuration.pairOnDevice(shown)
            var outcome = pairing.deviceAnswered(accepted: onDevice)
            if outcome == .waiting {
                let answer = await onReader.value
                outcome = pairing.readerAnswered(passkey: answer.passkey, accepted: answer.accepted)
            }
            switch outcome {
            case .paired: peripheral.bond()
            case .failed(let failure): throw Self.pairingFailed(failure, serial: peripheral.serialNumber)
            case .waiting, .ignored: throw Self.pairingFailed(.declinedOnDevice, serial: peripheral.serialNumber)
            }
        }
    }

    static func pairingFailed(_ failure: PairingStateMachine.Failure, serial: String) -> RPCError {
        let why = switch failure {
        case .declinedOnDevice: "Pair was not selected on this device"
        case .rejectedOnReader: "the passkey was rejected on the reader"
        case .passkeyMismatch: "the passkey confirmed on the reader is not the one this device showed"
        case .malformedPasskey: "the reader did not show a 6-digit passkey"
        }
        return RPCError(
            .bluetoothPairingFailed,
            "pairing with \(serial) failed: \(why); check that both show the same 6 digits, select Confirm on the reader and Pair on the device"
        )
    }

    static func rpcError(_ error: BluetoothError, serial: String) -> RPCError {
        switch error.code {
        case .connectedToAnotherDevice: RPCError(.bluetoothAlreadyPairedWithAnotherDevice, error.message)
        case .readerNotFound, .bluetoothDisabled, .disconnected: RPCError(.bluetoothConnectTimedOut, "\(serial): \(error.message)")
        }
    }
}
