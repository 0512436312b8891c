import GatewayWire

extension SimulatedBluetoothAir {
    /// Runs a command the gateway relayed, as the reader would: a collect waits for the card
    /// (``presentCard(_:_:)``), a cancel ends it with `COMMAND_CANCELED`, a confirm succeeds
    /// for the amount collected; a reboot is answered here and performed by the peripheral; a
    /// software update installs with `progress` (``installUpdate(_:_:on:connection:progress:)``).
    func run(
        _ command: ReaderGatewayV1.ReaderCommand, on serial: String, connection: UInt64, progress: @Sendable (Float) -> Void
    ) async -> ReaderGatewayV1.CommandResult {
        let id = command.commandID
        switch command.command {
        case .collectPaymentMethod(let params)?:
            return await withCheckedContinuation { waiter in
                var wakeups = Wakeups()
                state.withLock { state in
                    guard var reader = state.readers[serial], reader.connection?.id == connection else {
                        wakeups.collects.append((waiter, Self.result(id, ReaderGatewayV1.Status(.readerError, "the reader is not connected"))))
                        return
                    }
                    defer { state.readers[serial] = reader }
                    if let card = reader.tapped ?? reader.autoCard {
                        reader.tapped = nil
                        reader.lastAmount = params.amount
                        wakeups.collects.append((waiter, Self.collected(id: id, card: card, serial: serial)))
                    } else {
                        reader.collect = (waiter, id, params.amount)
                    }
                }
                wakeups.run()
            }
        case .cancelCollect?:
            var wakeups = Wakeups()
            state.withLock { state in
                guard let collect = state.readers[serial]?.collect else { return }
                state.readers[serial]!.collect = nil
                wakeups.collects.append((collect.waiter, Self.result(collect.id, ReaderGatewayV1.Status(.commandCanceled, "the collect was cancelled before a card was read"))))
            }
            wakeups.run()
            return Self.result(id, .ok)
        case .confirmPaymentIntent(let params)?:
            var intent = ReaderGatewayV1.PaymentIntentResult()
            intent.paymentIntentID = params.paymentIntentID
            intent.status = "succeeded"
            intent.amountReceived = state.withLock { $0.readers[serial]?.lastAmount ?? 0 }
            var result = Self.result(id, .ok)
            result.result = .paymentIntent(intent)
            return result
        case .setDisplay?, .clearDisplay?, .reboot?:
            return Self.result(id, .ok)
        case .installUpdate(let update)?:
            return await installUpdate(id, update.version, on: serial, connection: connection, progress: progress)
        case .cancelUpdate?:
            // The version whose install stops; empty when nothing installs.
            var result = Self.result(id, .ok)
            result.result = .updateVersion(cancelUpdate(on: serial))
            return result
        case nil:
            return Self.result(id, ReaderGatewayV1.Status(.readerNotReady, "this simulated Bluetooth reader does not know the command; update the client library"))
        }
    }
}
