import GatewayClient
import GatewayCommandLine
import GatewayWire
import GatewayWireClients

extension SimulatedReader {
    /// Runs a command from the gateway without blocking the downlink (a cancel may follow).
    func run(_ command: ReaderGatewayV1.ReaderCommand, on link: ReaderLinkClient) {
        let id = command.commandID
        switch command.command {
        case .collectPaymentMethod(let params)?:
            Output.line("command", ["serial": serial, "kind": "collect", "id": "\(id)", "amount": "\(params.amount)", "currency": params.currency])
            collectTask?.cancel()
            collectTask = Task { await self.collect(id: id, params: params, link: link) }
        case .confirmPaymentIntent(let params)?:
            Output.line("command", ["serial": serial, "kind": "confirm", "id": "\(id)", "payment_intent": params.paymentIntentID])
            Task { await self.confirm(id: id, params: params, link: link) }
        case .cancelCollect?:
            Output.line("command", ["serial": serial, "kind": "cancel_collect", "id": "\(id)"])
            collectTask?.cancel()
            collectTask = nil
            if id != 0 { Task { await self.answer(id, on: link) } }
        case .setDisplay(let cart)?:
            Output.line("display", ["serial": serial, "id": "\(id)", "total": "\(cart.total)", "currency": cart.currency, "items": "\(cart.lineItems.count)"])
            Task { await self.answer(id, on: link) }
        case .clearDisplay?:
            Output.line("display", ["serial": serial, "id": "\(id)", "cleared": "true"])
            Task { await self.answer(id, on: link) }
        case .reboot?:
            Output.line("command", ["serial": serial, "kind": "reboot", "id": "\(id)"])
            Task {
                await self.answer(id, on: link)
                self.reboot()
            }
        case .installUpdate(let update)?:
            Output.line("command", [
                "serial": serial, "kind": "install_update", "id": "\(id)", "version": update.version, "required": update.required ? "true" : "false",
            ])
            updateTask?.cancel()
            updateTask = Task { await self.installUpdate(id: id, update: update, link: link) }
        case .cancelUpdate?:
            Output.line("command", ["serial": serial, "kind": "cancel_update", "id": "\(id)"])
            let canceled = installingVersion
            updateTask?.cancel()
            updateTask = nil
            var result = ReaderGatewayV1.CommandResult()
            result.commandID = id
            result.status = .ok
            result.result = .updateVersion(canceled)
            Task { await self.deliver(result, on: link) }
        case nil:
            var result = ReaderGatewayV1.CommandResult()
            result.commandID = id
            result.status = ReaderGatewayV1.Status(.readerNotReady, "this reader does not know the command")
            Task { await self.deliver(result, on: link) }
        }
    }

    private func collect(id: UInt64, params: ReaderGatewayV1.CollectPaymentMethodParams, link: ReaderLinkClient) async {
        activity = .collecting
        await sendHeartbeat()
        var result = ReaderGatewayV1.CommandResult()
        result.commandID = id
        do {
            try await Task.sleep(for: configuration.collectDuration + slowDelay)
            if configuration.cardOnCommand {
                await waitForCard()
                try Task.checkCancellation()
            }
            if let declineCode = declineNext {
                declineNext = nil
                var status = ReaderGatewayV1.Status(.cardDeclined, "the card was declined (\(declineCode)); ask for another card")
                status.declineCode = declineCode
                result.status = status
            } else {
                let card = presented ?? ("visa", "4242")
                presented = nil
                var method = ReaderGatewayV1.PaymentMethod()
                method.id = "pm_sim_\(serial)_\(id)"
                method.brand = card.brand
                method.last4 = card.last4
                method.expMonth = 12
                method.expYear = 2030
                method.readMethod = "contactless_emv"
                result.status = .ok
                result.result = .paymentMethod(method)
                lastAmount = params.amount
            }
        } catch {
            result.status = ReaderGatewayV1.Status(.commandCanceled, "the collect was cancelled")
        }
        activity = .idle
        if let declineCode = result.status?.declineCode, !declineCode.isEmpty {
            Output.line("result", ["serial": serial, "kind": "collect", "id": "\(id)", "status": statusName(result.status), "decline_code": declineCode])
        } else {
            Output.line("result", ["serial": serial, "kind": "collect", "id": "\(id)", "status": statusName(result.status)])
        }
        await deliver(result, on: link)
        await sendHeartbeat()
    }

    /// `--card manual`: waits until a card is presented (or declined), or the collect is cancelled.
    private func waitForCard() async {
        guard presented == nil, declineNext == nil else { return }
        Output.line("waiting_for_card", ["serial": serial])
        await withTaskCancellationHandler {
            await withCheckedContinuation { cardWaiter = $0 }
        } onCancel: {
            Task { await self.cardPresented() }
        }
    }

    /// Ends a wait for a card, if one is waiting.
    func cardPresented() {
        cardWaiter?.resume()
        cardWaiter = nil
    }

    private func confirm(id: UInt64, params: ReaderGatewayV1.ConfirmPaymentIntentParams, link: ReaderLinkClient) async {
        activity = .confirming
        await sendHeartbeat()
        try? await Task.sleep(for: configuration.confirmDuration + slowDelay)
        var result = ReaderGatewayV1.CommandResult()
        result.commandID = id
        activity = .idle
        if let declineCode = declineNextConfirm {
            declineNextConfirm = nil
            var status = ReaderGatewayV1.Status(.cardDeclined, "the payment was declined at confirm (\(declineCode)); ask for another card and collect again")
            status.declineCode = declineCode
            result.status = status
            Output.line("result", ["serial": serial, "kind": "confirm", "id": "\(id)", "status": statusName(status), "decline_code": declineCode])
            await deliver(result, on: link)
            await sendHeartbeat()
            return
        }
        var intent = ReaderGatewayV1.PaymentIntentResult()
        intent.paymentIntentID = params.paymentIntentID
        intent.status = "succeeded"
        intent.amountReceived = lastAmount
        result.status = .ok
        result.result = .paymentIntent(intent)
        Output.line("result", ["serial": serial, "kind": "confirm", "id": "\(id)", "status": "OK"])
        await deliver(result, on: link)
        await sendHeartbeat()
    }

    /// Installs `update`: progress from 0 to 1 over the configured duration, then the new
    /// version in a heartbeat and the answer. A battery at or below 50 % refuses it; a
    /// `fail-update` (or --fail-updates) fails it halfway; a CancelUpdate stops it.
    private func installUpdate(id: UInt64, update: ReaderGatewayV1.ReaderCommand.InstallUpdate, link: ReaderLinkClient) async {
        let version = update.version.isEmpty ? "2.21.0.0" : update.version
        var result = ReaderGatewayV1.CommandResult()
        result.commandID = id
        if let level = batteryLevel, level <= 0.5 {
            result.status = ReaderGatewayV1.Status(.readerSoftwareUpdateFailedBatteryLow, "the battery is at \(Int((level * 100).rounded())) %; charge it above 50 % to update")
            Output.line("update_failed", ["serial": serial, "version": version, "reason": "battery_low"])
            await deliver(result, on: link)
            return
        }
        let fails = failNextUpdate || configuration.failUpdates
        failNextUpdate = false
        installingVersion = version
        activity = .updating
        await sendHeartbeat()
        let steps = 4
        var outcome = "installed"
        for step in 0...steps {
            let progress = Float(step) / Float(steps)
            if fails && progress > 0.5 {
                outcome = "failed"
                break
            }
            do {
                try await link.sendUpdateProgress(version: version, progress: progress)
            } catch {
                Output.line("send_failed", ["serial": serial, "what": "update_progress", "error": "\(error)"])
            }
            Output.line("update_progress", ["serial": serial, "version": version, "progress": "\(progress)"])
            guard step < steps else { break }
            do {
                try await Task.sleep(for: configuration.updateDuration / steps + slowDelay)
            } catch {
                outcome = "canceled"
                break
            }
        }
        installingVersion = ""
        activity = .idle
        switch outcome {
        case "installed":
            softwareVersion = version
            result.status = .ok
            result.result = .updateVersion(version)
            Output.line("updated", ["serial": serial, "version": version])
        case "canceled":
            result.status = ReaderGatewayV1.Status(.commandCanceled, "the software update \(version) was cancelled")
            Output.line("update_canceled", ["serial": serial, "version": version])
        default:
            result.status = ReaderGatewayV1.Status(.readerSoftwareUpdateFailed, "the reader could not install \(version) (simulated failure)")
            Output.line("update_failed", ["serial": serial, "version": version, "reason": "failed"])
        }
        // The new version reaches the gateway before the answer: its next decision sees it.
        await sendHeartbeat()
        await deliver(result, on: link)
    }

    /// Answers a command with OK after the configured slowness.
    func answer(_ id: UInt64, on link: ReaderLinkClient) async {
        try? await Task.sleep(for: slowDelay)
        var result = ReaderGatewayV1.CommandResult()
        result.commandID = id
        result.status = .ok
        await deliver(result, on: link)
    }

    private func statusName(_ status: ReaderGatewayV1.Status?) -> String {
        guard let status, status.code != .ok else { return "OK" }
        return status.reason.protoName.map { String($0.dropFirst("ERROR_REASON_".count)) } ?? "\(status.reason.rawValue)"
    }
}

extension SimulatedReader {
    /// Sends a command's result; when the link ended first the result is lost with it (the
    /// gateway failed the command when the link went) and the output says so.
    func deliver(_ result: ReaderGatewayV1.CommandResult, on link: ReaderLinkClient) async {
        do {
            try await link.sendResult(result)
        } catch {
            Output.line("send_failed", ["serial": serial, "what": "result", "id": "\(result.commandID)", "error": "\(error)"])
        }
    }
}
