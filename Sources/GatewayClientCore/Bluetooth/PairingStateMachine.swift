import GatewayWire

/// Numeric-comparison Bluetooth pairing of a WisePad 3 with a point-of-sale device, as a
/// value.
///
/// ```
///             begin (WisePad 3, device not bonded)          reader confirmed + device paired
///   idle ──────────────────────────────────────► comparing ─────────────────────────────► paired
///     │  begin (bonded device, or another model)   │ device declined, reader rejected,
///     └──────────────────────────────────► paired  │ passkeys differ
///                                                  └──────────────────────────────────► failed
/// ```
///
/// The reader and the device each show the same 6-digit passkey; the user checks that they
/// match, selects **Confirm** on the reader and **Pair** on the device (in either order).
/// Only a new device, or one the reader forgot, pairs this way; a bonded device connects at
/// once.
package struct PairingStateMachine: Sendable {
    /// The states.
    package enum State: Sendable, Equatable {
        /// Nothing started.
        case idle
        /// Both sides show `passkey`; waiting for the reader's Confirm and the device's Pair.
        case comparing(passkey: String, readerConfirmed: Bool, deviceConfirmed: Bool)
        /// The reader and the device are bonded.
        case paired
        /// Pairing failed (`reason` says why); start again with a new passkey.
        case failed(reason: Failure)
    }

    /// Why pairing failed.
    package enum Failure: Sendable, Equatable {
        /// The user did not select Pair on the device.
        case declinedOnDevice
        /// The user rejected (or let time out) the passkey on the reader.
        case rejectedOnReader
        /// The passkey confirmed does not match the one shown (not the same pairing).
        case passkeyMismatch
        /// The passkey is not 6 digits.
        case malformedPasskey
    }

    /// What ``begin(deviceType:bonded:passkey:)`` decided.
    package enum OnBegin: Sendable, Equatable {
        /// No comparison needed: connect.
        case notRequired
        /// Show `passkey` to the user and ask them to confirm on the reader and pair here.
        case showPasskey(String)
        /// The pairing cannot start.
        case fail(Failure)
    }

    /// What a confirmation led to.
    package enum OnConfirmation: Sendable, Equatable {
        /// The other side has not confirmed yet.
        case waiting
        /// Both confirmed: the devices are bonded.
        case paired
        /// Pairing failed.
        case failed(Failure)
        /// No pairing is waiting for this (already finished, or never started).
        case ignored
    }

    package private(set) var state = State.idle

    package init() {}

    /// The device connects to a reader of `deviceType`; `bonded` says whether the reader
    /// already knows this device; `passkey` is the 6 digits the reader shows.
    package mutating func begin(deviceType: ReaderGatewayV1.DeviceType, bonded: Bool, passkey: String) -> OnBegin {
        guard deviceType.pairsByNumericComparison, !bonded else {
            state = .paired
            return .notRequired
        }
        guard Self.isPasskey(passkey) else {
            state = .failed(reason: .malformedPasskey)
            return .fail(.malformedPasskey)
        }
        state = .comparing(passkey: passkey, readerConfirmed: false, deviceConfirmed: false)
        return .showPasskey(passkey)
    }

    /// The user selected Confirm (`accepted`) or Cancel on the reader, which showed `passkey`.
    package mutating func readerAnswered(passkey: String, accepted: Bool) -> OnConfirmation {
        guard case .comparing(let shown, _, let device) = state else { return .ignored }
        guard accepted else { return fail(.rejectedOnReader) }
        guard passkey == shown else { return fail(.passkeyMismatch) }
        return confirmed(passkey: shown, reader: true, device: device)
    }

    /// The user selected Pair (`accepted`) or Cancel on the point-of-sale device.
    package mutating func deviceAnswered(accepted: Bool) -> OnConfirmation {
        guard case .comparing(let shown, let reader, _) = state else { return .ignored }
        guard accepted else { return fail(.declinedOnDevice) }
        return confirmed(passkey: shown, reader: reader, device: true)
    }

    /// Whether `passkey` is exactly 6 decimal digits.
    package static func isPasskey(_ passkey: String) -> Bool {
        passkey.utf8.count == 6 && passkey.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private mutating func confirmed(passkey: String, reader: Bool, device: Bool) -> OnConfirmation {
        guard reader, device else {
            state = .comparing(passkey: passkey, readerConfirmed: reader, deviceConfirmed: device)
            return .waiting
        }
        state = .paired
        return .paired
    }

    private mutating func fail(_ failure: Failure) -> OnConfirmation {
        state = .failed(reason: failure)
        return .failed(failure)
    }
}
