import GatewayClient
@testable import GatewayClientCore
import GatewayRPC
import GatewayWire
import Testing

/// The client's own models, made from what the gateway sends: Stripe Terminal's names and
/// shapes, the gateway's extras beside them, and no value lost on the way.
@Suite("Client models")
struct ModelsTests {
    @Test("a reader keeps every field; its device type, status and activity have names of their own")
    func reader() {
        var update = ReaderGatewayV1.ReaderSoftwareUpdate()
        update.deviceType = .bbposWisepad3
        update.version = "2.5.0"
        update.components = ["firmware", "config"]
        update.durationEstimate = .oneToTwoMinutes
        update.requiredAtUnixMs = 1_700_000_000_000
        update.required = true
        var wire = ReaderGatewayV1.Reader()
        wire.id = "tmr_1"
        wire.serialNumber = "WPC3-1"
        wire.label = "Counter 1"
        wire.deviceType = .bbposWisepad3
        wire.softwareVersion = "2.4.0"
        wire.locationID = "tml_1"
        wire.networkStatus = .online
        wire.activity = .collecting
        wire.ipAddress = "10.0.0.7"
        wire.batteryLevel = 0.5
        wire.lastSeenUnixMs = 42
        wire.simulated = true
        wire.availableUpdate = update
        let reader = Reader(wire)
        #expect(reader.id == "tmr_1" && reader.serialNumber == "WPC3-1" && reader.label == "Counter 1")
        #expect(reader.deviceType == .wisePad3 && reader.deviceType.name == "bbpos_wisepad3")
        #expect(reader.softwareVersion == "2.4.0" && reader.locationID == "tml_1" && reader.ipAddress == "10.0.0.7")
        #expect(reader.networkStatus == .online && reader.isOnline && reader.activity == .collecting)
        #expect(reader.batteryLevel == 0.5 && reader.lastSeenUnixMs == 42 && reader.simulated)
        let available = reader.availableUpdate
        #expect(available != nil)
        #expect(available?.version == "2.5.0" && available?.deviceType == .wisePad3 && available?.components == ["firmware", "config"])
        #expect(available?.estimatedUpdateTime == .oneToTwoMinutes && available?.requiredAtUnixMs == 1_700_000_000_000 && available?.isRequired == true)
        // Nothing set: unknowns, not guesses.
        let empty = Reader(ReaderGatewayV1.Reader())
        #expect(empty.deviceType == .unknown && empty.networkStatus == .unknown && empty.activity == .unknown)
        #expect(empty.batteryLevel == nil && empty.availableUpdate == nil && !empty.isOnline)
    }

    @Test("every device type the wire knows has the name gatewayctl uses; one it does not know keeps its number")
    func deviceTypes() {
        let named: [(ReaderGatewayV1.DeviceType, DeviceType)] = [
            (.bbposWiseposE, .wisePosE), (.stripeS700, .stripeS700), (.stripeS710, .stripeS710),
            (.simulatedWiseposE, .simulatedWisePosE), (.bbposWisepad3, .wisePad3), (.stripeM2, .stripeM2),
            (.bbposChipper2xBt, .chipper2X), (.tapToPay, .tapToPay), (.unspecified, .unknown),
        ]
        for (wire, model) in named {
            #expect(DeviceType(wire) == model, "\(wire)")
        }
        for wire in ReaderGatewayV1.DeviceType.knownValues where wire.rawValue != 0 {
            #expect(DeviceType(wire) != .unknown && !DeviceType(wire).name.contains("device_type"), "\(wire)")
        }
        #expect(DeviceType(ReaderGatewayV1.DeviceType(rawValue: 99)).name == "device_type_99")
    }

    @Test("a device type goes back to the wire's: every known one, an unknown number kept, unknown as unspecified")
    func deviceTypeToWire() {
        for wire in ReaderGatewayV1.DeviceType.knownValues {
            #expect(DeviceType(wire).wire == wire, "\(wire)")
        }
        #expect(DeviceType.wisePad3.wire == .bbposWisepad3 && DeviceType.chipper2X.wire == .bbposChipper2xBt && DeviceType.stripeM2.wire == .stripeM2)
        #expect(DeviceType(ReaderGatewayV1.DeviceType(rawValue: 99)).wire.rawValue == 99)
        #expect(DeviceType.unknown.wire == .unspecified && DeviceType(name: "a_reader_from_elsewhere").wire == .unspecified)
    }

    @Test("disconnect reasons carry Terminal's names; every reason the wire knows has its own")
    func disconnectReasons() {
        #expect(DisconnectReason(.requested) == .disconnectRequested)
        #expect(DisconnectReason(.rebootRequested) == .rebootRequested)
        #expect(DisconnectReason(.replaced) == .replaced)
        #expect(DisconnectReason(.unspecified) == .unknown)
        #expect(DisconnectReason(ReaderGatewayV1.DisconnectReason(rawValue: 99)) == .unknown)
        let known = ReaderGatewayV1.DisconnectReason.knownValues.filter { $0.rawValue != 0 }
        #expect(Set(known.map(DisconnectReason.init)).count == known.count, "two wire reasons share a name")
        #expect(!known.map(DisconnectReason.init).contains(.unknown))
    }

    @Test("a mobile reader's link endings carry Terminal's names, in the same DisconnectReason; every one the wire knows has its own")
    func mobileDisconnectReasons() {
        #expect(DisconnectReason(mobile: .disconnectRequested) == .disconnectRequested)
        #expect(DisconnectReason(mobile: .rebootRequested) == .rebootRequested)
        #expect(DisconnectReason(mobile: .poweredOff) == .poweredOff)
        #expect(DisconnectReason(mobile: .bluetoothSignalLost) == .bluetoothSignalLost)
        #expect(DisconnectReason(mobile: .appInBackground) == .appInBackground)
        #expect(DisconnectReason(mobile: .unknown) == .unknown)
        #expect(DisconnectReason(mobile: ReaderGatewayV1.MobileDisconnectReason(rawValue: 99)) == .unknown)
        let known = ReaderGatewayV1.MobileDisconnectReason.knownValues.filter { $0.rawValue != 0 }
        #expect(Set(known.map(DisconnectReason.init(mobile:))).count == known.count, "two wire reasons share a name")
        #expect(!known.map(DisconnectReason.init(mobile:)).contains(.unknown))
        for wire in ReaderGatewayV1.MobileDisconnectReason.knownValues {
            #expect(DisconnectReason(mobile: wire).mobileWire == wire, "\(wire) does not go back to the wire as itself")
        }
        #expect(DisconnectReason.replaced.mobileWire == .unknown && DisconnectReason.readerLost.mobileWire == .unknown)
    }

    @Test("a Tap to Pay connect answers the reader and what the connect did, never the reader's credential")
    func tapToPayConnection() throws {
        var wire = ReaderGatewayV1.ConnectTapToPayReaderResponse()
        var reader = ReaderGatewayV1.Reader()
        reader.id = "tmr_ttp"
        reader.serialNumber = "TTP-PHONE-1"
        reader.deviceType = .tapToPay
        reader.locationID = "tml_1"
        wire.reader = reader
        wire.merchantDisplayName = "Shop of Till"
        wire.termsAcceptedNow = true
        wire.accountsInWindow = 2
        wire.readerCredential = "rcred_SECRET_77"
        var setup = ReaderGatewayV1.ReaderSoftwareUpdate()
        setup.version = "config-17.4"
        setup.components = ["config"]
        setup.deviceType = .tapToPay
        wire.deviceSetup = setup

        let connection = TapToPayConnection(wire, reader: reader)
        #expect(connection.reader.id == "tmr_ttp" && connection.reader.serialNumber == "TTP-PHONE-1")
        #expect(connection.reader.deviceType == .tapToPay && connection.reader.locationID == "tml_1")
        #expect(connection.merchantDisplayName == "Shop of Till" && connection.termsAcceptedNow && connection.accountsInWindow == 2)
        let mapped = try #require(connection.deviceSetup)
        #expect(mapped.version == "config-17.4" && mapped.components == ["config"] && mapped.deviceType == .tapToPay)

        wire.deviceSetup = nil
        #expect(TapToPayConnection(wire, reader: reader).deviceSetup == nil)
    }

    @Test("a location keeps its address; payments after collect and after confirm")
    func locationAndPayments() {
        var address = ReaderGatewayV1.Address()
        address.city = "Lyon"
        address.postalCode = "69001"
        var wire = ReaderGatewayV1.Location()
        wire.id = "tml_1"
        wire.displayName = "Front Store"
        wire.address = address
        let location = Location(wire)
        #expect(location.id == "tml_1" && location.displayName == "Front Store" && location.address?.city == "Lyon" && location.address?.postalCode == "69001")

        var method = ReaderGatewayV1.PaymentMethod()
        method.id = "pm_1"
        method.brand = "visa"
        method.last4 = "4242"
        method.expMonth = 12
        method.expYear = 2030
        method.readMethod = "contactless_emv"
        var collected = ReaderGatewayV1.CollectPaymentMethodResponse()
        collected.paymentIntentID = "pi_1"
        collected.paymentMethod = method
        let intent = PaymentIntent(collected: collected)
        #expect(intent.id == "pi_1" && intent.status == .requiresConfirmation && intent.amountReceived == 0)
        #expect(intent.paymentMethod?.last4 == "4242" && intent.paymentMethod?.brand == "visa" && intent.paymentMethod?.expYear == 2030 && intent.paymentMethod?.readMethod == "contactless_emv")

        var result = ReaderGatewayV1.PaymentIntentResult()
        result.paymentIntentID = "pi_1"
        result.status = "succeeded"
        result.amountReceived = 1999
        let confirmed = PaymentIntent(confirmed: result, paymentMethod: intent.paymentMethod)
        #expect(confirmed.status == .succeeded && confirmed.amountReceived == 1999 && confirmed.paymentMethod == intent.paymentMethod)
        result.status = "requires_capture"
        #expect(PaymentIntent(confirmed: result).status == .requiresCapture)
        result.status = "something_new"
        #expect(PaymentIntent(confirmed: result).status == .other("something_new"))
        // Every status keeps Stripe's name both ways.
        for name in ["requires_payment_method", "requires_confirmation", "requires_capture", "processing", "canceled", "succeeded", "something_new"] {
            result.status = name
            #expect(PaymentIntent(confirmed: result).status.name == name)
        }
    }

    @Test("errors carry Terminal's names: one canceled, readerConnectedToAnotherDevice with who took the reader")
    func errors() {
        for reason in [ReaderGatewayV1.ErrorReason.commandCanceled, .discoveryCanceled, .cancelledByPeer] {
            #expect(TerminalError(RPCError(reason, "canceled")).code == .canceled, "\(reason)")
        }
        #expect(TerminalError(RPCError(code: .cancelled, reason: .unspecified, message: "the task was cancelled")).code == .canceled)
        var message = ReaderGatewayV1.ReaderDisconnected()
        message.readerID = "tmr_1"
        message.reason = .replaced
        message.takenByLaneLabel = "Lane 2"
        message.takenByPosDeviceID = "pos-2"
        let takeover = DisconnectInfo(message)
        let taken = TerminalError(RPCError(.readerConnectedToAnotherSession, "Lane 2 took the reader"), takenBy: takeover)
        #expect(taken.code == .readerConnectedToAnotherDevice && taken.takenBy?.takenByLaneLabel == "Lane 2" && taken.takenBy?.takenByPosDeviceID == "pos-2")
        #expect(taken.description == "readerConnectedToAnotherDevice: Lane 2 took the reader (taken by Lane 2) [ERROR_REASON_READER_CONNECTED_TO_ANOTHER_SESSION]")
        // Only a takeover names who took the reader.
        #expect(TerminalError(RPCError(.readerBusy, "busy"), takenBy: takeover).takenBy == nil)
        #expect(TerminalError(RPCError(.connectionTokenExpired, "expired")).code == .connectionTokenProviderCompletedWithError)
        #expect(TerminalError(RPCError(.staleDiscovery, "stale")).code == .staleDiscovery)
        #expect(TerminalError(RPCError(.authenticationRateLimited, "too many wrong keys")).code == .rateLimited)
        #expect(TerminalError(RPCError(.goingAway, "draining")).code == .gatewayUnavailable)
        #expect(TerminalError(RPCError(.goingAway, "draining")).isRetryable)
        #expect(TerminalError(RPCError(.internal, "bug")).code == .unexpectedSdkError)
        // A decline is not a reader fault: its own code, with the decline code from the status.
        var declined = ReaderGatewayV1.Status(.cardDeclined, "the card was declined")
        declined.declineCode = "insufficient_funds"
        let decline = TerminalError(RPCError(status: declined))
        #expect(decline.code == .declinedByReader && decline.declineCode == "insufficient_funds")
        #expect(decline.underlying.code == .failedPrecondition)
        #expect(decline.description == "declinedByReader: the card was declined (decline code: insufficient_funds) [ERROR_REASON_CARD_DECLINED]")
        let fault = TerminalError(RPCError(status: ReaderGatewayV1.Status(.readerError, "the card was removed")))
        #expect(fault.code == .readerError && fault.declineCode == nil)
        #expect(fault.description == "readerError: the card was removed [ERROR_REASON_READER_ERROR]")
        // Every reason a lane can meet has a code of its own, not the catch-all.
        let laneReasons: [ReaderGatewayV1.ErrorReason] = [
            .connectionTokenInvalid, .sessionExpired, .rateLimited, .invalidRequest, .readerBusy, .readerOffline, .readerNotFound,
            .notConnectedToReader, .alreadyConnectedToReader, .locationRequired, .locationNotFound, .readerError, .readerTimeout,
            .tapToPayUnsupportedDevice, .tapToPayReaderMerchantBlocked, .tapToPayReaderTosAcceptanceCanceled, .readerSoftwareUpdateFailed,
            .readerSoftwareUpdateFailedBatteryLow, .readerSoftwareUpdateFailedInterrupted, .bluetoothAlreadyPairedWithAnotherDevice,
            .bluetoothPairingFailed, .bluetoothConnectTimedOut, .permissionDenied, .deadlineExceeded, .cardDeclined,
        ]
        for reason in laneReasons {
            #expect(TerminalError(RPCError(reason, "x")).code != .unexpectedSdkError, "\(reason)")
        }
    }
}
