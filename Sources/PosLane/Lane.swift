import GatewayClient
import GatewayCommandLine
import GatewaySimulators
import GatewayWire

/// One interactive lane: runs stdin commands against a TerminalClient and prints results.
actor Lane {
    let terminal: TerminalClient
    let configuration: LaneConfiguration
    var readers: [DiscoveredReader] = []
    var lastPaymentIntent: PaymentIntent?
    var paymentCounter = 0
    var collectTask: Task<Void, Never>?
    var updateTask: Task<Void, Never>?
    /// The simulated Bluetooth readers around this device (nil when reader-sim hosts them:
    /// `--bluetooth-air`), and its radio among them.
    let air: SimulatedBluetoothAir?
    let radio: any BluetoothRadio
    var bluetoothReaders: [BluetoothDiscoveredReader] = []
    var bluetoothConnection: BluetoothReaderConnection?

    /// A lane whose Bluetooth readers are simulated in this process (`--bluetooth-readers`).
    init(terminal: TerminalClient, configuration: LaneConfiguration) {
        let air = SimulatedBluetoothAir()
        for spec in configuration.bluetoothReaders {
            air.addReader(serialNumber: spec.serialNumber, deviceType: spec.deviceType)
        }
        self.init(terminal: terminal, configuration: configuration, air: air, radio: SimulatedRadio(air: air, deviceID: configuration.posDeviceID))
    }

    /// A lane on `radio` (an air another process hosts when `air` is nil).
    init(terminal: TerminalClient, configuration: LaneConfiguration, air: SimulatedBluetoothAir?, radio: any BluetoothRadio) {
        self.terminal = terminal
        self.configuration = configuration
        self.air = air
        self.radio = radio
    }

    func run(_ command: LaneCommand) async {
        do {
            switch command {
            case .discover(let filter):
                // A new discovery supersedes the previous one: no cancel first.
                readers = try await terminal.discoverReaders(InternetDiscoveryConfiguration(locationID: configuration.locationID, filter: filter))
                for reader in readers {
                    LineWriter.line("reader", [
                        "reader_id": reader.id, "label": reader.label, "serial": reader.serialNumber,
                        "status": reader.isOnline ? "online" : "offline", "discovery_id": reader.discoveryID,
                    ])
                }
                LineWriter.line("discovered", ["count": "\(readers.count)"])
            case .connect(let readerID, let failIfInUse):
                guard let reader = readers.first(where: { $0.id == readerID }) else {
                    LineWriter.line("error", ["command": "connect", "message": "no reader \(readerID) in the latest discovery; run `discover` first"])
                    return
                }
                do {
                    let connected = try await terminal.connectReader(reader, connectionConfig: InternetConnectionConfiguration(failIfInUse: failIfInUse))
                    readers = []
                    let details = terminal.latestConnection
                    var fields: [(key: String, value: String)] = [
                        ("reader_id", reader.id), ("label", reader.label), ("generation", "\(details?.generation ?? 0)"),
                        ("replaced_other_session", details?.replacedOtherSession == true ? "true" : "false"),
                    ]
                    if let update = connected.availableUpdate { fields.append(("available_update", update.version)) }
                    if let failure = details?.requiredUpdateFailure { fields.append(("required_update_failure", failure.message)) }
                    LineWriter.line(OutputLine(event: "connected", fields: fields))
                } catch let error as TerminalError where error.code == .readerBusy {
                    // The recommended pattern: ask the user before interrupting another lane's payment.
                    LineWriter.line("busy", [
                        "reader_id": reader.id,
                        "message": "the reader is mid-transaction for another lane; to take it over anyway: connect \(reader.id)",
                    ])
                }
            case .easyConnect(let filter, let failIfInUse):
                try await easyConnect(filter, failIfInUse: failIfInUse)
            case .collect(let amount):
                paymentCounter += 1
                let intent = "pi_\(configuration.posDeviceID)_\(paymentCounter)"
                let payment = PaymentIntentParameters(id: intent, amount: amount, currency: "usd")
                LineWriter.line("collecting", ["payment_intent": intent, "amount": "\(amount)"])
                collectTask = Task { await self.collect(payment) }
            case .confirm:
                guard let intent = lastPaymentIntent else {
                    LineWriter.line("error", ["command": "confirm", "message": "nothing collected yet; run `collect AMOUNT` first"])
                    return
                }
                let result = try await terminal.confirmPaymentIntent(intent)
                LineWriter.line("confirmed", ["payment_intent": result.id, "status": result.status.name, "amount": "\(result.amountReceived)"])
            case .cancel:
                try await terminal.cancelCollectPaymentMethod()
                LineWriter.line("cancel_requested", [:])
            case .display(let item, let amount):
                try await terminal.setReaderDisplay(Cart(currency: "usd", lineItems: [Cart.LineItem(displayName: item, amount: amount)], total: amount))
                LineWriter.line("displayed", ["item": item, "total": "\(amount)"])
            case .clear:
                try await terminal.clearReaderDisplay()
                LineWriter.line("cleared", [:])
            case .reboot:
                try await terminal.rebootReader()
                LineWriter.line("rebooting", [:])
            case .installUpdate:
                LineWriter.line("installing_update", [:])
                updateTask = Task { await self.installUpdate() }
            case .cancelUpdate:
                let canceled = try await terminal.cancelReaderSoftwareUpdate()
                LineWriter.line("cancel_update_requested", ["was_installing": canceled ? "true" : "false"])
            case .disconnect:
                try await terminal.disconnectReader()
                LineWriter.line("disconnected_reader", [:])
            case .tapToPay(let model, let osVersion):
                let simulated = TapToPayDevice.simulatedSupported
                let device = TapToPayDevice(model: model ?? simulated.model, osVersion: osVersion ?? simulated.osVersion)
                let response = try await terminal.connectTapToPayReader(
                    device: device, TapToPayConnectionConfiguration(locationID: configuration.locationID)
                )
                LineWriter.line("tap_to_pay_connected", [
                    "reader_id": response.reader.id, "serial": response.reader.serialNumber,
                    "merchant": response.merchantDisplayName, "accounts_in_window": "\(response.accountsInWindow)",
                    "terms_accepted_now": response.termsAcceptedNow ? "true" : "false",
                ])
            case .tap(let brand, let last4):
                guard let reader = terminal.tapToPayReader else {
                    LineWriter.line("error", ["command": "tap", "message": "no Tap to Pay reader on this lane; run `tap-to-pay` first"])
                    return
                }
                reader.presentCard(TapToPayReader.Card(brand: brand, last4: last4))
                LineWriter.line("tapped", ["brand": brand, "last4": last4])
            case .background:
                terminal.applicationDidEnterBackground()
                LineWriter.line("in_background", [:])
            case .foreground:
                terminal.applicationWillEnterForeground()
                LineWriter.line("in_foreground", [:])
            case .bluetooth(let bluetooth):
                try await runBluetooth(bluetooth)
            case .quit:
                collectTask?.cancel()
                do {
                    try await terminal.closeSession()
                    LineWriter.line("closed", [:])
                } catch {
                    // The gateway releases the reader when the session's lease runs out.
                    LineWriter.line("closed", ["warning": "the gateway did not confirm the close: \(error)"])
                }
            }
        } catch let error as TerminalError {
            LineWriter.failure("\(command)", error)
        } catch {
            LineWriter.line("error", ["command": "\(command)", "message": "\(error)"])
        }
    }

    private func installUpdate() async {
        do {
            let version = try await terminal.installAvailableUpdate()
            LineWriter.line("update_installed", ["version": version.isEmpty ? "none" : version])
        } catch let error as TerminalError {
            LineWriter.failure("install-update", error)
        } catch {
            LineWriter.line("error", ["command": "install-update", "message": "\(error)"])
        }
    }

    private func collect(_ payment: PaymentIntentParameters) async {
        do {
            var collected = try await terminal.collectPaymentMethod(payment)
            if collected.id.isEmpty { collected.id = payment.id }
            lastPaymentIntent = collected
            LineWriter.line("collected", [
                "payment_intent": collected.id, "brand": collected.paymentMethod?.brand ?? "",
                "last4": collected.paymentMethod?.last4 ?? "",
            ])
        } catch let error as TerminalError {
            LineWriter.failure("collect", error)
        } catch {
            LineWriter.line("error", ["command": "collect", "message": "\(error)"])
        }
    }
}
