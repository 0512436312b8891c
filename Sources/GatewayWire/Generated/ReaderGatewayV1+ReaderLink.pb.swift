// Generated from readergateway/v1/reader_link.proto by proto/tools/generate_swift.py. DO NOT EDIT.
// Regenerate with `make generate-proto`; `make test` fails when this file drifts.

// swiftlint:disable all

extension ReaderGatewayV1 {

    /// The first uplink message of an Attach call.
    public struct ReaderHello: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderHello"

        /// The serial number printed on the device.
        public var serialNumber: String = ""

        /// The hardware model.
        public var deviceType: ReaderGatewayV1.DeviceType = ReaderGatewayV1.DeviceType(rawValue: 0)

        /// The reader software version.
        public var softwareVersion: String = ""

        /// The credential from an earlier RegistrationState; empty for a reader that
        /// was never registered (it then gets a registration code) or one registered
        /// by serial number (it then proves its serial with its client certificate).
        public var readerCredential: String = ""

        /// The reader's IP address on its local network.
        public var ipAddress: String = ""

        /// Battery level from 0.0 to 1.0; absent for mains-powered readers.
        public var batteryLevel: Float? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.serialNumber = try reader.read(ProtobufString.self, tag)
                case 2: self.deviceType = try reader.read(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, tag)
                case 3: self.softwareVersion = try reader.read(ProtobufString.self, tag)
                case 4: self.readerCredential = try reader.read(ProtobufString.self, tag)
                case 5: self.ipAddress = try reader.read(ProtobufString.self, tag)
                case 6: self.batteryLevel = try reader.read(ProtobufFloat.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.serialNumber, field: 1)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, self.deviceType, field: 2)
            writer.writeSingular(ProtobufString.self, self.softwareVersion, field: 3)
            writer.writeSingular(ProtobufString.self, self.readerCredential, field: 4)
            writer.writeSingular(ProtobufString.self, self.ipAddress, field: 5)
            if let value = self.batteryLevel { writer.writeAlways(ProtobufFloat.self, value, field: 6) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("serialNumber", self.serialNumber)
            d.value("deviceType", self.deviceType, isDefault: self.deviceType.rawValue == 0)
            d.string("softwareVersion", self.softwareVersion)
            d.secret("readerCredential", self.readerCredential)
            d.string("ipAddress", self.ipAddress)
            if let value = self.batteryLevel { d.value("batteryLevel", value, isDefault: false) }
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A periodic status report; also the reader's liveness signal.
    public struct ReaderHeartbeat: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderHeartbeat"

        /// What the reader is doing.
        public var activity: ReaderGatewayV1.ReaderActivity = ReaderGatewayV1.ReaderActivity(rawValue: 0)

        /// Battery level from 0.0 to 1.0; absent for mains-powered readers.
        public var batteryLevel: Float? = nil

        /// The reader's current IP address.
        public var ipAddress: String = ""

        /// Whether it is charging.
        public var charging: Bool = false

        /// The software version it runs now; empty for unchanged since the hello
        /// (a reader reports its new version here after installing an update).
        public var softwareVersion: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.activity = try reader.read(ProtobufEnumField<ReaderGatewayV1.ReaderActivity>.self, tag)
                case 2: self.batteryLevel = try reader.read(ProtobufFloat.self, tag)
                case 3: self.ipAddress = try reader.read(ProtobufString.self, tag)
                case 4: self.charging = try reader.read(ProtobufBool.self, tag)
                case 5: self.softwareVersion = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.ReaderActivity>.self, self.activity, field: 1)
            if let value = self.batteryLevel { writer.writeAlways(ProtobufFloat.self, value, field: 2) }
            writer.writeSingular(ProtobufString.self, self.ipAddress, field: 3)
            writer.writeSingular(ProtobufBool.self, self.charging, field: 4)
            writer.writeSingular(ProtobufString.self, self.softwareVersion, field: 5)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("activity", self.activity, isDefault: self.activity.rawValue == 0)
            if let value = self.batteryLevel { d.value("batteryLevel", value, isDefault: false) }
            d.string("ipAddress", self.ipAddress)
            d.value("charging", self.charging, isDefault: !self.charging)
            d.string("softwareVersion", self.softwareVersion)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The reader's answer to one ReaderCommand.
    public struct CommandResult: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CommandResult"

        /// The result, for commands that have one and succeeded.
        public enum Result: Equatable, Sendable {
            /// For CollectPaymentMethod.
            case paymentMethod(ReaderGatewayV1.PaymentMethod)
            /// For ConfirmPaymentIntent.
            case paymentIntent(ReaderGatewayV1.PaymentIntentResult)
            /// For InstallUpdate: the version installed (the reader runs it from now on).
            case updateVersion(String)
        }

        /// The command_id of the command answered.
        public var commandID: UInt64 = 0

        /// OK, or why it failed (READER_ERROR, COMMAND_CANCELED, READER_NOT_READY;
        /// for a collect or confirm CARD_DECLINED with its decline_code; for InstallUpdate READER_SOFTWARE_UPDATE_FAILED,
        /// READER_SOFTWARE_UPDATE_FAILED_BATTERY_LOW, or COMMAND_CANCELED after a
        /// CancelUpdate).
        public var status: ReaderGatewayV1.Status? = nil

        /// The result, for commands that have one and succeeded.
        public var result: Result? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.commandID = try reader.read(ProtobufUInt64.self, tag)
                case 2: self.status = try reader.readMessage(tag, as: ReaderGatewayV1.Status.self)
                case 3: self.result = .paymentMethod(try reader.readMessage(tag, as: ReaderGatewayV1.PaymentMethod.self))
                case 4: self.result = .paymentIntent(try reader.readMessage(tag, as: ReaderGatewayV1.PaymentIntentResult.self))
                case 5: self.result = .updateVersion(try reader.read(ProtobufString.self, tag))
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufUInt64.self, self.commandID, field: 1)
            if let value = self.status { writer.writeMessage(value, field: 2) }
            switch self.result {
            case .paymentMethod(let value)?: writer.writeMessage(value, field: 3)
            case .paymentIntent(let value)?: writer.writeMessage(value, field: 4)
            case .updateVersion(let value)?: writer.writeAlways(ProtobufString.self, value, field: 5)
            case nil: break
            }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("commandID", self.commandID, isDefault: self.commandID == 0)
            d.message("status", self.status)
            switch self.result {
            case .paymentMethod(let value)?: d.message("paymentMethod", value)
            case .paymentIntent(let value)?: d.message("paymentIntent", value)
            case .updateVersion(let value)?: d.string("updateVersion", value)
            case nil: break
            }
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// Progress of a software update, reported by the reader.
    public struct ReaderUpdateProgress: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderUpdateProgress"

        /// The version being installed.
        public var version: String = ""

        /// From 0.0 to 1.0.
        public var progress: Float = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.version = try reader.read(ProtobufString.self, tag)
                case 2: self.progress = try reader.read(ProtobufFloat.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.version, field: 1)
            writer.writeSingular(ProtobufFloat.self, self.progress, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("version", self.version)
            d.value("progress", self.progress, isDefault: self.progress == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One message from the reader to the gateway.
    public struct ReaderUplink: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderUplink"

        /// What it carries.
        public enum Message: Equatable, Sendable {
            /// First message of the call.
            case hello(ReaderGatewayV1.ReaderHello)
            /// Status and liveness.
            case heartbeat(ReaderGatewayV1.ReaderHeartbeat)
            /// The answer to a command.
            case commandResult(ReaderGatewayV1.CommandResult)
            /// Update progress.
            case updateProgress(ReaderGatewayV1.ReaderUpdateProgress)
            /// A mobile reader's link is about to end, and why (sent by the
            /// point-of-sale device that carries the link, just before it ends the
            /// call): a Bluetooth reader's, or a Tap to Pay phone's own.
            case linkEnding(ReaderGatewayV1.ReaderLinkEnding)
        }

        /// What it carries.
        public var message: Message? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.message = .hello(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderHello.self))
                case 2: self.message = .heartbeat(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderHeartbeat.self))
                case 3: self.message = .commandResult(try reader.readMessage(tag, as: ReaderGatewayV1.CommandResult.self))
                case 4: self.message = .updateProgress(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderUpdateProgress.self))
                case 16: self.message = .linkEnding(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderLinkEnding.self))
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            switch self.message {
            case .hello(let value)?: writer.writeMessage(value, field: 1)
            case .heartbeat(let value)?: writer.writeMessage(value, field: 2)
            case .commandResult(let value)?: writer.writeMessage(value, field: 3)
            case .updateProgress(let value)?: writer.writeMessage(value, field: 4)
            case .linkEnding(let value)?: writer.writeMessage(value, field: 16)
            case nil: break
            }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            switch self.message {
            case .hello(let value)?: d.message("hello", value)
            case .heartbeat(let value)?: d.message("heartbeat", value)
            case .commandResult(let value)?: d.message("commandResult", value)
            case .updateProgress(let value)?: d.message("updateProgress", value)
            case .linkEnding(let value)?: d.message("linkEnding", value)
            case nil: break
            }
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// Why a mobile reader's link ends (a Bluetooth reader's, or a Tap to Pay
    /// phone's own: APP_IN_BACKGROUND), sent by the device carrying it. A link
    /// of a mobile reader that ends while `reconnecting` (or without this
    /// message: the device's connection dropped) keeps the reader's owner until
    /// the offline bound passes without a new Attach; one that ends without it
    /// (DISCONNECT_REQUESTED, a failed or cancelled reconnect) releases the owner
    /// at once. Either way the reason is recorded in the reader's history, and
    /// the call the device then half-closes ends OK (an orderly end); a mobile
    /// link that ends without this message ends with READER_OFFLINE, as a lost
    /// reader's does.
    public struct ReaderLinkEnding: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderLinkEnding"

        /// Why the device lost (or let go of) the reader.
        public var reason: ReaderGatewayV1.MobileDisconnectReason = ReaderGatewayV1.MobileDisconnectReason(rawValue: 0)

        /// True when the device is reconnecting to the reader by itself
        /// (autoReconnectOnUnexpectedDisconnect).
        public var reconnecting: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.reason = try reader.read(ProtobufEnumField<ReaderGatewayV1.MobileDisconnectReason>.self, tag)
                case 2: self.reconnecting = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.MobileDisconnectReason>.self, self.reason, field: 1)
            writer.writeSingular(ProtobufBool.self, self.reconnecting, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("reason", self.reason, isDefault: self.reason.rawValue == 0)
            d.value("reconnecting", self.reconnecting, isDefault: !self.reconnecting)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The reader's registration, sent after ReaderHello and again when it changes.
    public struct RegistrationState: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RegistrationState"

        /// True once the reader belongs to an account and location.
        public var registered: Bool = false

        /// While unregistered: the short code to display, which an admin types in
        /// FleetAdmin.RegisterReader. Single use.
        public var registrationCode: String = ""

        /// When the registration code expires; the gateway sends a fresh one then.
        public var registrationCodeExpiresUnixMs: Int64 = 0

        /// Once registered: the reader's id.
        public var readerID: String = ""

        /// Once registered: the label to show.
        public var label: String = ""

        /// Once registered: the location.
        public var locationID: String = ""

        /// Sent once, at the moment of registration by code: the secret the reader
        /// presents in ReaderHello.reader_credential from then on. Empty otherwise.
        public var readerCredential: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.registered = try reader.read(ProtobufBool.self, tag)
                case 2: self.registrationCode = try reader.read(ProtobufString.self, tag)
                case 3: self.registrationCodeExpiresUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 4: self.readerID = try reader.read(ProtobufString.self, tag)
                case 5: self.label = try reader.read(ProtobufString.self, tag)
                case 6: self.locationID = try reader.read(ProtobufString.self, tag)
                case 7: self.readerCredential = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufBool.self, self.registered, field: 1)
            writer.writeSingular(ProtobufString.self, self.registrationCode, field: 2)
            writer.writeSingular(ProtobufInt64.self, self.registrationCodeExpiresUnixMs, field: 3)
            writer.writeSingular(ProtobufString.self, self.readerID, field: 4)
            writer.writeSingular(ProtobufString.self, self.label, field: 5)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 6)
            writer.writeSingular(ProtobufString.self, self.readerCredential, field: 7)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("registered", self.registered, isDefault: !self.registered)
            d.secret("registrationCode", self.registrationCode)
            d.value("registrationCodeExpiresUnixMs", self.registrationCodeExpiresUnixMs, isDefault: self.registrationCodeExpiresUnixMs == 0)
            d.string("readerID", self.readerID)
            d.string("label", self.label)
            d.string("locationID", self.locationID)
            d.secret("readerCredential", self.readerCredential)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// Commands the gateway relays from the owning session to the reader.
    public struct ReaderCommand: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderCommand"

        /// The command.
        public enum Command: Equatable, Sendable {
            /// Start collecting a payment method.
            case collectPaymentMethod(ReaderGatewayV1.CollectPaymentMethodParams)
            /// Confirm a payment intent.
            case confirmPaymentIntent(ReaderGatewayV1.ConfirmPaymentIntentParams)
            /// Cancel the running collect.
            case cancelCollect(ReaderGatewayV1.ReaderCommand.CancelCollect)
            /// Show a cart.
            case setDisplay(ReaderGatewayV1.Cart)
            /// Back to the splash screen.
            case clearDisplay(ReaderGatewayV1.ReaderCommand.ClearDisplay)
            /// Reboot.
            case reboot(ReaderGatewayV1.ReaderCommand.Reboot)
            /// Install a software update; the reader reports progress
            /// (ReaderUpdateProgress) and answers when the install has finished.
            case installUpdate(ReaderGatewayV1.ReaderCommand.InstallUpdate)
            /// Stop the running install; it answers COMMAND_CANCELED.
            case cancelUpdate(ReaderGatewayV1.ReaderCommand.CancelUpdate)
        }

        /// Unique per link; the CommandResult repeats it.
        public var commandID: UInt64 = 0

        /// How long the reader has to answer; 0 for no limit.
        public var timeoutMs: Int64 = 0

        /// The session that sent it, for the reader's logs.
        public var sessionID: String = ""

        /// The command.
        public var command: Command? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.commandID = try reader.read(ProtobufUInt64.self, tag)
                case 2: self.timeoutMs = try reader.read(ProtobufInt64.self, tag)
                case 3: self.sessionID = try reader.read(ProtobufString.self, tag)
                case 4: self.command = .collectPaymentMethod(try reader.readMessage(tag, as: ReaderGatewayV1.CollectPaymentMethodParams.self))
                case 5: self.command = .confirmPaymentIntent(try reader.readMessage(tag, as: ReaderGatewayV1.ConfirmPaymentIntentParams.self))
                case 6: self.command = .cancelCollect(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderCommand.CancelCollect.self))
                case 7: self.command = .setDisplay(try reader.readMessage(tag, as: ReaderGatewayV1.Cart.self))
                case 8: self.command = .clearDisplay(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderCommand.ClearDisplay.self))
                case 9: self.command = .reboot(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderCommand.Reboot.self))
                case 10: self.command = .installUpdate(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderCommand.InstallUpdate.self))
                case 11: self.command = .cancelUpdate(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderCommand.CancelUpdate.self))
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufUInt64.self, self.commandID, field: 1)
            writer.writeSingular(ProtobufInt64.self, self.timeoutMs, field: 2)
            writer.writeSingular(ProtobufString.self, self.sessionID, field: 3)
            switch self.command {
            case .collectPaymentMethod(let value)?: writer.writeMessage(value, field: 4)
            case .confirmPaymentIntent(let value)?: writer.writeMessage(value, field: 5)
            case .cancelCollect(let value)?: writer.writeMessage(value, field: 6)
            case .setDisplay(let value)?: writer.writeMessage(value, field: 7)
            case .clearDisplay(let value)?: writer.writeMessage(value, field: 8)
            case .reboot(let value)?: writer.writeMessage(value, field: 9)
            case .installUpdate(let value)?: writer.writeMessage(value, field: 10)
            case .cancelUpdate(let value)?: writer.writeMessage(value, field: 11)
            case nil: break
            }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("commandID", self.commandID, isDefault: self.commandID == 0)
            d.value("timeoutMs", self.timeoutMs, isDefault: self.timeoutMs == 0)
            d.string("sessionID", self.sessionID)
            switch self.command {
            case .collectPaymentMethod(let value)?: d.message("collectPaymentMethod", value)
            case .confirmPaymentIntent(let value)?: d.message("confirmPaymentIntent", value)
            case .cancelCollect(let value)?: d.message("cancelCollect", value)
            case .setDisplay(let value)?: d.message("setDisplay", value)
            case .clearDisplay(let value)?: d.message("clearDisplay", value)
            case .reboot(let value)?: d.message("reboot", value)
            case .installUpdate(let value)?: d.message("installUpdate", value)
            case .cancelUpdate(let value)?: d.message("cancelUpdate", value)
            case nil: break
            }
            d.unknown(self.unknownFields)
            return d.text
        }

        /// Cancel the running collect (no parameters).
        public struct CancelCollect: ProtobufMessage {
            public static let protoMessageName = "readergateway.v1.ReaderCommand.CancelCollect"

            /// Fields this version does not know, kept as raw bytes and written back on encode.
            public var unknownFields: [UInt8] = []

            public init() {}

            public init(from reader: inout ProtobufReader) throws {
                self.init()
                while let tag = try reader.nextTag() {
                    switch tag.fieldNumber {
                    default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                    }
                }
            }

            public func encode(to writer: inout ProtobufWriter) {
                writer.writeRaw(self.unknownFields)
            }

            /// The fields that are set, secrets redacted (ProtobufDescription).
            public var description: String {
                var d = ProtobufDescription(Self.protoMessageName)
                d.unknown(self.unknownFields)
                return d.text
            }
        }

        /// Clear the display (no parameters).
        public struct ClearDisplay: ProtobufMessage {
            public static let protoMessageName = "readergateway.v1.ReaderCommand.ClearDisplay"

            /// Fields this version does not know, kept as raw bytes and written back on encode.
            public var unknownFields: [UInt8] = []

            public init() {}

            public init(from reader: inout ProtobufReader) throws {
                self.init()
                while let tag = try reader.nextTag() {
                    switch tag.fieldNumber {
                    default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                    }
                }
            }

            public func encode(to writer: inout ProtobufWriter) {
                writer.writeRaw(self.unknownFields)
            }

            /// The fields that are set, secrets redacted (ProtobufDescription).
            public var description: String {
                var d = ProtobufDescription(Self.protoMessageName)
                d.unknown(self.unknownFields)
                return d.text
            }
        }

        /// Reboot (no parameters).
        public struct Reboot: ProtobufMessage {
            public static let protoMessageName = "readergateway.v1.ReaderCommand.Reboot"

            /// Fields this version does not know, kept as raw bytes and written back on encode.
            public var unknownFields: [UInt8] = []

            public init() {}

            public init(from reader: inout ProtobufReader) throws {
                self.init()
                while let tag = try reader.nextTag() {
                    switch tag.fieldNumber {
                    default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                    }
                }
            }

            public func encode(to writer: inout ProtobufWriter) {
                writer.writeRaw(self.unknownFields)
            }

            /// The fields that are set, secrets redacted (ProtobufDescription).
            public var description: String {
                var d = ProtobufDescription(Self.protoMessageName)
                d.unknown(self.unknownFields)
                return d.text
            }
        }

        /// The update to install, from the account's catalog.
        public struct InstallUpdate: ProtobufMessage {
            public static let protoMessageName = "readergateway.v1.ReaderCommand.InstallUpdate"

            /// The version to install.
            public var version: String = ""

            /// What it changes (`incremental`, `firmware`, `config`, `keys`).
            public var components: [String] = []

            /// How long it is expected to take.
            public var durationEstimate: ReaderGatewayV1.UpdateDurationEstimate = ReaderGatewayV1.UpdateDurationEstimate(rawValue: 0)

            /// True for a required update installed during ConnectReader.
            public var required: Bool = false

            /// Fields this version does not know, kept as raw bytes and written back on encode.
            public var unknownFields: [UInt8] = []

            public init() {}

            public init(from reader: inout ProtobufReader) throws {
                self.init()
                while let tag = try reader.nextTag() {
                    switch tag.fieldNumber {
                    case 1: self.version = try reader.read(ProtobufString.self, tag)
                    case 2: try reader.readRepeated(ProtobufString.self, tag, into: &self.components)
                    case 3: self.durationEstimate = try reader.read(ProtobufEnumField<ReaderGatewayV1.UpdateDurationEstimate>.self, tag)
                    case 4: self.required = try reader.read(ProtobufBool.self, tag)
                    default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                    }
                }
            }

            public func encode(to writer: inout ProtobufWriter) {
                writer.writeSingular(ProtobufString.self, self.version, field: 1)
                writer.writeRepeated(ProtobufString.self, self.components, field: 2)
                writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.UpdateDurationEstimate>.self, self.durationEstimate, field: 3)
                writer.writeSingular(ProtobufBool.self, self.required, field: 4)
                writer.writeRaw(self.unknownFields)
            }

            /// The fields that are set, secrets redacted (ProtobufDescription).
            public var description: String {
                var d = ProtobufDescription(Self.protoMessageName)
                d.string("version", self.version)
                d.strings("components", self.components)
                d.value("durationEstimate", self.durationEstimate, isDefault: self.durationEstimate.rawValue == 0)
                d.value("required", self.required, isDefault: !self.required)
                d.unknown(self.unknownFields)
                return d.text
            }
        }

        /// Stop the running install (no parameters).
        public struct CancelUpdate: ProtobufMessage {
            public static let protoMessageName = "readergateway.v1.ReaderCommand.CancelUpdate"

            /// Fields this version does not know, kept as raw bytes and written back on encode.
            public var unknownFields: [UInt8] = []

            public init() {}

            public init(from reader: inout ProtobufReader) throws {
                self.init()
                while let tag = try reader.nextTag() {
                    switch tag.fieldNumber {
                    default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                    }
                }
            }

            public func encode(to writer: inout ProtobufWriter) {
                writer.writeRaw(self.unknownFields)
            }

            /// The fields that are set, secrets redacted (ProtobufDescription).
            public var description: String {
                var d = ProtobufDescription(Self.protoMessageName)
                d.unknown(self.unknownFields)
                return d.text
            }
        }
    }

    /// One message from the gateway to the reader.
    public struct ReaderDownlink: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderDownlink"

        /// What it carries.
        public enum Message: Equatable, Sendable {
            /// Registration state.
            case registration(ReaderGatewayV1.RegistrationState)
            /// A command to run.
            case command(ReaderGatewayV1.ReaderCommand)
            /// Which session owns the reader now, for its display ("Connected to Lane 3").
            case ownerChanged(ReaderGatewayV1.OwnerChanged)
        }

        /// What it carries.
        public var message: Message? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.message = .registration(try reader.readMessage(tag, as: ReaderGatewayV1.RegistrationState.self))
                case 2: self.message = .command(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderCommand.self))
                case 3: self.message = .ownerChanged(try reader.readMessage(tag, as: ReaderGatewayV1.OwnerChanged.self))
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            switch self.message {
            case .registration(let value)?: writer.writeMessage(value, field: 1)
            case .command(let value)?: writer.writeMessage(value, field: 2)
            case .ownerChanged(let value)?: writer.writeMessage(value, field: 3)
            case nil: break
            }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            switch self.message {
            case .registration(let value)?: d.message("registration", value)
            case .command(let value)?: d.message("command", value)
            case .ownerChanged(let value)?: d.message("ownerChanged", value)
            case nil: break
            }
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The reader's owner changed.
    public struct OwnerChanged: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.OwnerChanged"

        /// The owning lane's label; empty when no session owns the reader.
        public var laneLabel: String = ""

        /// The ownership generation.
        public var generation: UInt64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.laneLabel = try reader.read(ProtobufString.self, tag)
                case 2: self.generation = try reader.read(ProtobufUInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.laneLabel, field: 1)
            writer.writeSingular(ProtobufUInt64.self, self.generation, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("laneLabel", self.laneLabel)
            d.value("generation", self.generation, isDefault: self.generation == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The smart reader surface.
    public enum ReaderLink {
        /// The fully qualified service name used in method paths.
        public static let serviceName = "readergateway.v1.ReaderLink"

        /// The reader's one long-lived call: uplink messages up, downlink down.
        /// A second Attach with the same serial replaces the first, which ends with
        /// READER_LINK_REPLACED; the reader's owner keeps the reader. A link whose
        /// reader half-closes the call or stops heartbeating ends with UNAVAILABLE /
        /// READER_OFFLINE (the reader is offline), except a mobile reader's link
        /// that its device ends in order (a ReaderLinkEnding, then HALF_CLOSE),
        /// which ends OK whatever the ending says.
        public static let attach = ProtobufMethod<ReaderGatewayV1.ReaderUplink, ReaderGatewayV1.ReaderDownlink>(
            service: serviceName, method: "Attach", kind: .bidirectionalStreaming
        )

        /// Every method of the service, in declaration order.
        public static let methods: [MethodDescriptor] = [
            attach.descriptor,
        ]
    }
}
