import GatewayClient
import GatewayCommandLine
import GatewayTransport
import GatewayWire
import GatewayWireClients

/// One simulated smart reader: one TLS connection, one `ReaderLink.Attach` call, heartbeats,
/// the registration code flow, commands, and fault injection.
actor SimulatedReader {
    let serial: String
    let configuration: SimulatorConfiguration
    let certificate: CertificateKeyPair?
    let group: EventLoopGroup

    // Identity.
    var credential = ""
    var readerID = ""
    var softwareVersion: String

    // Behaviour and faults.
    var activity = ReaderGatewayV1.ReaderActivity.idle
    var ipAddress: String
    var silent = false
    /// Heartbeats handed to a link so far (across links): the `silent` line prints it, so a
    /// test knows exactly how many heartbeats to expect before the silence.
    var heartbeatsSent = 0
    var slowDelay = Duration.zero
    var presented: (brand: String, last4: String)?
    /// A collect waiting for a card (`--card manual`), resumed by `present` or `decline`.
    var cardWaiter: CheckedContinuation<Void, Never>?
    /// The next collect is declined with this decline code (`decline SERIAL [CODE]`).
    var declineNext: String?
    /// The next confirm is declined with this decline code (`decline SERIAL [CODE] confirm`).
    var declineNextConfirm: String?
    var stayOffline = false
    /// An explicit wait before the next attach (a reboot, a fault), instead of the backoff's.
    var nextReconnectDelay: Duration?
    /// When to dial again after a lost link: a random wait within a window that doubles with
    /// each failed attempt, from `--reconnect-delay` up to `--reconnect-delay-max`.
    var backoff: ReconnectBackoff
    /// The last TLS session, offered when the reader dials again (resumed, not a full handshake).
    let sessions = TLSSessionCache()
    var lastAmount: Int64 = 0
    /// The battery level (0 to 1) it reports; nil on mains power.
    var batteryLevel: Float?
    /// The next software update fails halfway.
    var failNextUpdate = false
    /// The software update installing now (a CancelUpdate cancels it), and its version.
    var updateTask: Task<Void, Never>?
    var installingVersion = ""

    // The current link.
    var channel: ClientChannel?
    var link: ReaderLinkClient?
    var linkEpoch = 0
    var attached = false
    var collectTask: Task<Void, Never>?
    var dropReason: String?

    init(serial: String, index: Int, configuration: SimulatorConfiguration, certificate: CertificateKeyPair?, group: EventLoopGroup) {
        self.serial = serial
        self.configuration = configuration
        self.certificate = certificate
        self.group = group
        self.softwareVersion = configuration.softwareVersion
        self.batteryLevel = configuration.batteryLevel
        self.ipAddress = configuration.ipAddress(forReaderAt: index)
        self.backoff = ReconnectBackoff(base: configuration.reconnectDelay, cap: configuration.reconnectDelayMax)
    }

    /// Attaches, and re-attaches after every lost link, until cancelled.
    func run() async {
        for _ in 0..<Int.max {
            if Task.isCancelled { break }
            if stayOffline {
                try? await Task.sleep(for: .milliseconds(50))
                continue
            }
            await attachOnce()
            if Task.isCancelled { break }
            let delay = nextReconnectDelay ?? backoff.nextDelay()
            nextReconnectDelay = nil
            try? await Task.sleep(for: delay)
        }
        channel?.close()
    }

    private func attachOnce() async {
        var channelConfiguration = ClientChannelConfiguration(
            host: configuration.gateway.host, port: configuration.gateway.port, serverName: configuration.serverName,
            trustedCAPath: configuration.caPath, clientCertificate: certificate,
            keepalive: .init(interval: .seconds(5), timeout: .seconds(5))
        )
        channelConfiguration.connectTimeout = .seconds(5)
        let channel: ClientChannel
        do {
            channel = try await ClientChannel.connect(channelConfiguration, over: LinuxTLSTransport(group: group, sessions: sessions))
        } catch {
            Output.line("connect_failed", ["serial": serial, "error": "\(error)"])
            return
        }
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = serial
        hello.deviceType = configuration.deviceType
        hello.softwareVersion = softwareVersion
        hello.readerCredential = credential
        hello.ipAddress = ipAddress
        hello.batteryLevel = batteryLevel
        let link: ReaderLinkClient
        do {
            link = try await ReaderLinkClient.attach(on: channel, hello: hello)
        } catch {
            Output.line("attach_failed", ["serial": serial, "error": "\(error)"])
            channel.close()
            return
        }
        linkEpoch += 1
        let epoch = linkEpoch
        self.channel = channel
        self.link = link
        dropReason = nil
        Output.line("attaching", ["serial": serial, "gateway": configuration.gateway.description, "mtls": certificate == nil ? "false" : "true"])
        let heartbeats = Task { await self.heartbeatLoop(epoch: epoch) }
        var reason = "the gateway ended the link"
        do {
            for try await downlink in link.downlinks {
                handle(downlink, link: link)
            }
        } catch let error as RPCError {
            reason = error.description
        } catch {
            reason = "\(error)"
        }
        heartbeats.cancel()
        collectTask?.cancel()
        collectTask = nil
        updateTask?.cancel()
        updateTask = nil
        activity = .idle
        attached = false
        self.link = nil
        self.channel = nil
        channel.close()
        Output.line("offline", ["serial": serial, "reader_id": readerID, "reason": dropReason ?? reason])
    }

    private func heartbeatLoop(epoch: Int) async {
        for _ in 0..<Int.max {
            do {
                try await Task.sleep(for: configuration.heartbeatInterval)
            } catch {
                return
            }
            guard epoch == linkEpoch else { return }
            if !silent { await sendHeartbeat() }
            if batteryLevel == 0 {
                // Drained: the reader powers off until told `online`.
                Output.line("powered_off", ["serial": serial, "reader_id": readerID, "reason": "battery empty"])
                stayOffline = true
                disconnect(reason: "battery empty", reconnectAfter: .zero)
                return
            }
        }
    }

    func sendHeartbeat() async {
        guard let link else { return }
        heartbeatsSent += 1
        var heartbeat = ReaderGatewayV1.ReaderHeartbeat()
        heartbeat.activity = activity
        heartbeat.ipAddress = ipAddress
        if let level = batteryLevel, configuration.batteryDrain > 0, !silent {
            batteryLevel = max(0, level - configuration.batteryDrain)
        }
        heartbeat.batteryLevel = batteryLevel
        heartbeat.charging = batteryLevel != nil && configuration.batteryDrain == 0
        heartbeat.softwareVersion = softwareVersion
        do {
            try await link.heartbeat(heartbeat)
        } catch {
            // The link's own loop sees the end and reconnects; the heartbeat is just noted.
            Output.line("send_failed", ["serial": serial, "what": "heartbeat", "error": "\(error)"])
        }
    }

    private func handle(_ downlink: ReaderGatewayV1.ReaderDownlink, link: ReaderLinkClient) {
        switch downlink.message {
        case .registration(let state)?:
            if !state.registered {
                Output.line("registration_code", [
                    "serial": serial, "code": state.registrationCode, "expires_unix_ms": "\(state.registrationCodeExpiresUnixMs)",
                ])
                return
            }
            readerID = state.readerID
            if !state.readerCredential.isEmpty {
                credential = state.readerCredential
                Output.line("registered", ["serial": serial, "reader_id": state.readerID, "label": state.label, "location": state.locationID])
            }
            if !attached {
                attached = true
                backoff.reset()
                Output.line("online", ["serial": serial, "reader_id": state.readerID, "label": state.label])
            }
        case .command(let command)?:
            run(command, on: link)
        case .ownerChanged(let owner)?:
            Output.line("owner", ["serial": serial, "lane": owner.laneLabel, "generation": "\(owner.generation)"])
        case nil:
            break
        }
    }

    // MARK: fault injection

    func apply(_ command: SimulatorCommand) async {
        switch command {
        case .silent:
            silent = true
            Output.line("silent", ["serial": serial, "heartbeats_sent": "\(heartbeatsSent)"])
        case .wake:
            silent = false
            Output.line("awake", ["serial": serial])
            await sendHeartbeat()
        case .drop(_, let duration):
            disconnect(reason: "network dropped (fault injection)", reconnectAfter: duration)
        case .offline:
            stayOffline = true
            disconnect(reason: "network down (fault injection)", reconnectAfter: .zero)
        case .online:
            stayOffline = false
            nextReconnectDelay = .zero
        case .reboot:
            reboot()
        case .slow(_, let delay):
            slowDelay = delay
            Output.line("slow", ["serial": serial, "delay": DurationText.format(delay)])
        case .changeIP(_, let address):
            ipAddress = address
            Output.line("ip_changed", ["serial": serial, "ip": address])
            await sendHeartbeat()
        case .present(_, let brand, let last4):
            presented = (brand, last4)
            declineNext = nil
            Output.line("card_ready", ["serial": serial, "brand": brand, "last4": last4])
            cardPresented()
        case .decline(_, let code, .collect):
            declineNext = code
            Output.line("card_ready", ["serial": serial, "decline": "true", "decline_code": code])
            cardPresented()
        case .decline(_, let code, .confirm):
            declineNextConfirm = code
            Output.line("confirm_will_decline", ["serial": serial, "decline_code": code])
        case .battery(_, let level):
            batteryLevel = level
            Output.line("battery", ["serial": serial, "level": "\(level)"])
            await sendHeartbeat()
        case .failUpdate:
            failNextUpdate = true
            Output.line("update_will_fail", ["serial": serial])
        case .status:
            Output.line("status", [
                "serial": serial, "reader_id": readerID, "attached": attached ? "true" : "false",
                "activity": activityName, "silent": silent ? "true" : "false", "ip": ipAddress,
                "battery": batteryLevel.map { "\($0)" } ?? "none", "version": softwareVersion,
            ])
        case .quit:
            stayOffline = true
            disconnect(reason: "quit", reconnectAfter: .zero)
        case .power, .range, .idle, .answerPairing, .hours:
            // Bluetooth readers' commands: main refuses them before they reach a smart reader.
            break
        }
    }

    var activityName: String {
        switch activity {
        case .collecting: "collecting"
        case .confirming: "confirming"
        case .updating: "updating"
        case .rebooting: "rebooting"
        default: "idle"
        }
    }

    /// Closes the link (the gateway sees the connection end) and re-attaches after `delay`.
    func disconnect(reason: String, reconnectAfter delay: Duration) {
        dropReason = reason
        nextReconnectDelay = delay
        channel?.close()
    }

    func reboot() {
        activity = .rebooting
        Output.line("rebooting", ["serial": serial, "reader_id": readerID])
        disconnect(reason: "rebooting", reconnectAfter: configuration.rebootDuration)
    }
}
