// Generated from readergateway/v1/common.proto by proto/tools/generate_swift.py. DO NOT EDIT.
// Regenerate with `make generate-proto`; `make test` fails when this file drifts.

// swiftlint:disable all

extension ReaderGatewayV1 {

    /// The hardware model of a reader.
    public struct DeviceType: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Not reported.
        public static let unspecified = DeviceType(rawValue: 0)
        /// BBPOS WisePOS E (smart reader).
        public static let bbposWiseposE = DeviceType(rawValue: 1)
        /// Stripe Reader S700 (smart reader).
        public static let stripeS700 = DeviceType(rawValue: 2)
        /// Stripe Reader S710 (smart reader, cellular).
        public static let stripeS710 = DeviceType(rawValue: 3)
        /// A simulated WisePOS E (reader-sim).
        public static let simulatedWiseposE = DeviceType(rawValue: 4)
        /// A mobile reader connected through the point-of-sale device.
        public static let mobile = DeviceType(rawValue: 5)
        /// Tap to Pay on the point-of-sale device itself.
        public static let tapToPay = DeviceType(rawValue: 6)
        /// BBPOS WisePad 3 (Bluetooth reader; numeric-comparison pairing).
        public static let bbposWisepad3 = DeviceType(rawValue: 7)
        /// Stripe Reader M2 (Bluetooth reader).
        public static let stripeM2 = DeviceType(rawValue: 8)
        /// BBPOS Chipper 2X BT (Bluetooth reader; proximity discovery).
        public static let bbposChipper2xBt = DeviceType(rawValue: 9)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [DeviceType] = [.unspecified, .bbposWiseposE, .stripeS700, .stripeS710, .simulatedWiseposE, .mobile, .tapToPay, .bbposWisepad3, .stripeM2, .bbposChipper2xBt]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "DEVICE_TYPE_UNSPECIFIED"
            case 1: "DEVICE_TYPE_BBPOS_WISEPOS_E"
            case 2: "DEVICE_TYPE_STRIPE_S700"
            case 3: "DEVICE_TYPE_STRIPE_S710"
            case 4: "DEVICE_TYPE_SIMULATED_WISEPOS_E"
            case 5: "DEVICE_TYPE_MOBILE"
            case 6: "DEVICE_TYPE_TAP_TO_PAY"
            case 7: "DEVICE_TYPE_BBPOS_WISEPAD3"
            case 8: "DEVICE_TYPE_STRIPE_M2"
            case 9: "DEVICE_TYPE_BBPOS_CHIPPER2X_BT"
            default: nil
            }
        }
    }

    /// Why a mobile reader's link ended: a Bluetooth reader's link to its
    /// point-of-sale device, or a Tap to Pay phone's own reader (Stripe's
    /// DisconnectReason for mobile readers). The device reports it on the reader's
    /// link (ReaderLinkEnding); the fleet's history shows it.
    public struct MobileDisconnectReason: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Not known (the device's connection to the gateway dropped, for one).
        public static let unknown = MobileDisconnectReason(rawValue: 0)
        /// The app disconnected the reader (disconnectReader).
        public static let disconnectRequested = MobileDisconnectReason(rawValue: 1)
        /// The app rebooted the reader (rebootReader).
        public static let rebootRequested = MobileDisconnectReason(rawValue: 2)
        /// The reader rebooted itself after 24 hours of uptime.
        public static let securityReboot = MobileDisconnectReason(rawValue: 3)
        /// The reader's battery ran critically low.
        public static let criticallyLowBattery = MobileDisconnectReason(rawValue: 4)
        /// The reader was powered off.
        public static let poweredOff = MobileDisconnectReason(rawValue: 5)
        /// Bluetooth was turned off on the point-of-sale device.
        public static let bluetoothDisabled = MobileDisconnectReason(rawValue: 6)
        /// The reader powered down after being idle.
        public static let idlePowerDown = MobileDisconnectReason(rawValue: 7)
        /// The reader went out of range (Bluetooth signal lost).
        public static let bluetoothSignalLost = MobileDisconnectReason(rawValue: 8)
        /// Tap to Pay: the app went to the background, where the phone's reader
        /// cannot run (it reconnects when the app is back in the foreground).
        public static let appInBackground = MobileDisconnectReason(rawValue: 9)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [MobileDisconnectReason] = [.unknown, .disconnectRequested, .rebootRequested, .securityReboot, .criticallyLowBattery, .poweredOff, .bluetoothDisabled, .idlePowerDown, .bluetoothSignalLost, .appInBackground]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "MOBILE_DISCONNECT_REASON_UNKNOWN"
            case 1: "MOBILE_DISCONNECT_REASON_DISCONNECT_REQUESTED"
            case 2: "MOBILE_DISCONNECT_REASON_REBOOT_REQUESTED"
            case 3: "MOBILE_DISCONNECT_REASON_SECURITY_REBOOT"
            case 4: "MOBILE_DISCONNECT_REASON_CRITICALLY_LOW_BATTERY"
            case 5: "MOBILE_DISCONNECT_REASON_POWERED_OFF"
            case 6: "MOBILE_DISCONNECT_REASON_BLUETOOTH_DISABLED"
            case 7: "MOBILE_DISCONNECT_REASON_IDLE_POWER_DOWN"
            case 8: "MOBILE_DISCONNECT_REASON_BLUETOOTH_SIGNAL_LOST"
            case 9: "MOBILE_DISCONNECT_REASON_APP_IN_BACKGROUND"
            default: nil
            }
        }
    }

    /// Whether a reader is attached to the gateway right now.
    public struct ReaderNetworkStatus: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Not known.
        public static let unspecified = ReaderNetworkStatus(rawValue: 0)
        /// The reader's link is up and heartbeating.
        public static let online = ReaderNetworkStatus(rawValue: 1)
        /// No link, or heartbeats stopped for longer than the offline bound.
        public static let offline = ReaderNetworkStatus(rawValue: 2)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [ReaderNetworkStatus] = [.unspecified, .online, .offline]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "READER_NETWORK_STATUS_UNSPECIFIED"
            case 1: "READER_NETWORK_STATUS_ONLINE"
            case 2: "READER_NETWORK_STATUS_OFFLINE"
            default: nil
            }
        }
    }

    /// What a reader is doing; COLLECTING and CONFIRMING are "in use"
    /// (mid-transaction) for fail_if_in_use.
    public struct ReaderActivity: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Not reported.
        public static let unspecified = ReaderActivity(rawValue: 0)
        /// Showing the splash screen or a cart; free to take over.
        public static let idle = ReaderActivity(rawValue: 1)
        /// Running collectPaymentMethod.
        public static let collecting = ReaderActivity(rawValue: 2)
        /// Running confirmPaymentIntent.
        public static let confirming = ReaderActivity(rawValue: 3)
        /// Installing a software update.
        public static let updating = ReaderActivity(rawValue: 4)
        /// Rebooting.
        public static let rebooting = ReaderActivity(rawValue: 5)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [ReaderActivity] = [.unspecified, .idle, .collecting, .confirming, .updating, .rebooting]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "READER_ACTIVITY_UNSPECIFIED"
            case 1: "READER_ACTIVITY_IDLE"
            case 2: "READER_ACTIVITY_COLLECTING"
            case 3: "READER_ACTIVITY_CONFIRMING"
            case 4: "READER_ACTIVITY_UPDATING"
            case 5: "READER_ACTIVITY_REBOOTING"
            default: nil
            }
        }
    }

    /// How long a software update takes to install (Stripe's UpdateTimeEstimate).
    public struct UpdateDurationEstimate: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Not given.
        public static let unspecified = UpdateDurationEstimate(rawValue: 0)
        /// Less than a minute.
        public static let lessThanOneMinute = UpdateDurationEstimate(rawValue: 1)
        /// One to two minutes.
        public static let oneToTwoMinutes = UpdateDurationEstimate(rawValue: 2)
        /// Two to five minutes.
        public static let twoToFiveMinutes = UpdateDurationEstimate(rawValue: 3)
        /// Five to fifteen minutes.
        public static let fiveToFifteenMinutes = UpdateDurationEstimate(rawValue: 4)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [UpdateDurationEstimate] = [.unspecified, .lessThanOneMinute, .oneToTwoMinutes, .twoToFiveMinutes, .fiveToFifteenMinutes]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "UPDATE_DURATION_ESTIMATE_UNSPECIFIED"
            case 1: "UPDATE_DURATION_ESTIMATE_LESS_THAN_ONE_MINUTE"
            case 2: "UPDATE_DURATION_ESTIMATE_ONE_TO_TWO_MINUTES"
            case 3: "UPDATE_DURATION_ESTIMATE_TWO_TO_FIVE_MINUTES"
            case 4: "UPDATE_DURATION_ESTIMATE_FIVE_TO_FIFTEEN_MINUTES"
            default: nil
            }
        }
    }

    /// A registered reader as discovery and the admin surface show it.
    public struct Reader: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.Reader"

        /// The gateway's id for the reader (`tmr_...`).
        public var id: String = ""

        /// The serial number printed on the device.
        public var serialNumber: String = ""

        /// The human label ("Lane 3 reader", "Front 2").
        public var label: String = ""

        /// The hardware model.
        public var deviceType: ReaderGatewayV1.DeviceType = ReaderGatewayV1.DeviceType(rawValue: 0)

        /// The software version the reader last reported.
        public var softwareVersion: String = ""

        /// The location the reader is registered to (`tml_...`).
        public var locationID: String = ""

        /// Online or offline right now.
        public var networkStatus: ReaderGatewayV1.ReaderNetworkStatus = ReaderGatewayV1.ReaderNetworkStatus(rawValue: 0)

        /// The last activity the reader reported.
        public var activity: ReaderGatewayV1.ReaderActivity = ReaderGatewayV1.ReaderActivity(rawValue: 0)

        /// The reader's IP address as it last reported it; empty when unknown.
        public var ipAddress: String = ""

        /// Battery level from 0.0 to 1.0; absent for mains-powered readers.
        public var batteryLevel: Float? = nil

        /// When the gateway last heard from the reader.
        public var lastSeenUnixMs: Int64 = 0

        /// True for simulated readers.
        public var simulated: Bool = false

        /// The newest update of the account's catalog for this device type that the
        /// reader does not run yet (Stripe's reader.availableUpdate); absent when
        /// the reader is up to date or its device type has no catalog. `required`
        /// says whether its required_at has passed (it then installs at the next
        /// connect).
        public var availableUpdate: ReaderGatewayV1.ReaderSoftwareUpdate? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.id = try reader.read(ProtobufString.self, tag)
                case 2: self.serialNumber = try reader.read(ProtobufString.self, tag)
                case 3: self.label = try reader.read(ProtobufString.self, tag)
                case 4: self.deviceType = try reader.read(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, tag)
                case 5: self.softwareVersion = try reader.read(ProtobufString.self, tag)
                case 6: self.locationID = try reader.read(ProtobufString.self, tag)
                case 7: self.networkStatus = try reader.read(ProtobufEnumField<ReaderGatewayV1.ReaderNetworkStatus>.self, tag)
                case 8: self.activity = try reader.read(ProtobufEnumField<ReaderGatewayV1.ReaderActivity>.self, tag)
                case 9: self.ipAddress = try reader.read(ProtobufString.self, tag)
                case 10: self.batteryLevel = try reader.read(ProtobufFloat.self, tag)
                case 11: self.lastSeenUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 12: self.simulated = try reader.read(ProtobufBool.self, tag)
                case 13: self.availableUpdate = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderSoftwareUpdate.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.id, field: 1)
            writer.writeSingular(ProtobufString.self, self.serialNumber, field: 2)
            writer.writeSingular(ProtobufString.self, self.label, field: 3)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, self.deviceType, field: 4)
            writer.writeSingular(ProtobufString.self, self.softwareVersion, field: 5)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 6)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.ReaderNetworkStatus>.self, self.networkStatus, field: 7)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.ReaderActivity>.self, self.activity, field: 8)
            writer.writeSingular(ProtobufString.self, self.ipAddress, field: 9)
            if let value = self.batteryLevel { writer.writeAlways(ProtobufFloat.self, value, field: 10) }
            writer.writeSingular(ProtobufInt64.self, self.lastSeenUnixMs, field: 11)
            writer.writeSingular(ProtobufBool.self, self.simulated, field: 12)
            if let value = self.availableUpdate { writer.writeMessage(value, field: 13) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("id", self.id)
            d.string("serialNumber", self.serialNumber)
            d.string("label", self.label)
            d.value("deviceType", self.deviceType, isDefault: self.deviceType.rawValue == 0)
            d.string("softwareVersion", self.softwareVersion)
            d.string("locationID", self.locationID)
            d.value("networkStatus", self.networkStatus, isDefault: self.networkStatus.rawValue == 0)
            d.value("activity", self.activity, isDefault: self.activity.rawValue == 0)
            d.string("ipAddress", self.ipAddress)
            if let value = self.batteryLevel { d.value("batteryLevel", value, isDefault: false) }
            d.value("lastSeenUnixMs", self.lastSeenUnixMs, isDefault: self.lastSeenUnixMs == 0)
            d.value("simulated", self.simulated, isDefault: !self.simulated)
            d.message("availableUpdate", self.availableUpdate)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One entry of an account's software update catalog (Stripe's
    /// ReaderSoftwareUpdate): a version of the reader software for one device type.
    public struct ReaderSoftwareUpdate: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderSoftwareUpdate"

        /// The device type it is for.
        public var deviceType: ReaderGatewayV1.DeviceType = ReaderGatewayV1.DeviceType(rawValue: 0)

        /// The version it installs (`2.4.0`; dotted numbers, compared number by number).
        public var version: String = ""

        /// What it changes: any of `incremental`, `firmware`, `config`, `keys`.
        public var components: [String] = []

        /// How long installing takes.
        public var durationEstimate: ReaderGatewayV1.UpdateDurationEstimate = ReaderGatewayV1.UpdateDurationEstimate(rawValue: 0)

        /// From when a reader that does not run it must install it before it may be
        /// connected; 0 for never (always optional).
        public var requiredAtUnixMs: Int64 = 0

        /// Only on a reader's available_update: whether required_at has passed.
        public var required: Bool = false

        /// When it was added to the catalog.
        public var addedUnixMs: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.deviceType = try reader.read(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, tag)
                case 2: self.version = try reader.read(ProtobufString.self, tag)
                case 3: try reader.readRepeated(ProtobufString.self, tag, into: &self.components)
                case 4: self.durationEstimate = try reader.read(ProtobufEnumField<ReaderGatewayV1.UpdateDurationEstimate>.self, tag)
                case 5: self.requiredAtUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 6: self.required = try reader.read(ProtobufBool.self, tag)
                case 7: self.addedUnixMs = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, self.deviceType, field: 1)
            writer.writeSingular(ProtobufString.self, self.version, field: 2)
            writer.writeRepeated(ProtobufString.self, self.components, field: 3)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.UpdateDurationEstimate>.self, self.durationEstimate, field: 4)
            writer.writeSingular(ProtobufInt64.self, self.requiredAtUnixMs, field: 5)
            writer.writeSingular(ProtobufBool.self, self.required, field: 6)
            writer.writeSingular(ProtobufInt64.self, self.addedUnixMs, field: 7)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("deviceType", self.deviceType, isDefault: self.deviceType.rawValue == 0)
            d.string("version", self.version)
            d.strings("components", self.components)
            d.value("durationEstimate", self.durationEstimate, isDefault: self.durationEstimate.rawValue == 0)
            d.value("requiredAtUnixMs", self.requiredAtUnixMs, isDefault: self.requiredAtUnixMs == 0)
            d.value("required", self.required, isDefault: !self.required)
            d.value("addedUnixMs", self.addedUnixMs, isDefault: self.addedUnixMs == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A postal address of a location.
    public struct Address: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.Address"

        /// Street and number.
        public var line1: String = ""

        /// Apartment, suite, floor.
        public var line2: String = ""

        /// City or town.
        public var city: String = ""

        /// State, county or province.
        public var state: String = ""

        /// Postal code.
        public var postalCode: String = ""

        /// Two-letter ISO country code.
        public var country: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.line1 = try reader.read(ProtobufString.self, tag)
                case 2: self.line2 = try reader.read(ProtobufString.self, tag)
                case 3: self.city = try reader.read(ProtobufString.self, tag)
                case 4: self.state = try reader.read(ProtobufString.self, tag)
                case 5: self.postalCode = try reader.read(ProtobufString.self, tag)
                case 6: self.country = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.line1, field: 1)
            writer.writeSingular(ProtobufString.self, self.line2, field: 2)
            writer.writeSingular(ProtobufString.self, self.city, field: 3)
            writer.writeSingular(ProtobufString.self, self.state, field: 4)
            writer.writeSingular(ProtobufString.self, self.postalCode, field: 5)
            writer.writeSingular(ProtobufString.self, self.country, field: 6)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("line1", self.line1)
            d.string("line2", self.line2)
            d.string("city", self.city)
            d.string("state", self.state)
            d.string("postalCode", self.postalCode)
            d.string("country", self.country)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A place where readers live (a store); readers are discovered per location.
    public struct Location: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.Location"

        /// The gateway's id for the location (`tml_...`).
        public var id: String = ""

        /// The name shown to staff.
        public var displayName: String = ""

        /// Where it is.
        public var address: ReaderGatewayV1.Address? = nil

        /// When the catalog's software updates become required for the readers here
        /// (PROTOCOL.md section 16); absent: at their required_at, any hour.
        public var installWindow: ReaderGatewayV1.InstallWindow? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.id = try reader.read(ProtobufString.self, tag)
                case 2: self.displayName = try reader.read(ProtobufString.self, tag)
                case 3: self.address = try reader.readMessage(tag, as: ReaderGatewayV1.Address.self)
                case 4: self.installWindow = try reader.readMessage(tag, as: ReaderGatewayV1.InstallWindow.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.id, field: 1)
            writer.writeSingular(ProtobufString.self, self.displayName, field: 2)
            if let value = self.address { writer.writeMessage(value, field: 3) }
            if let value = self.installWindow { writer.writeMessage(value, field: 4) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("id", self.id)
            d.string("displayName", self.displayName)
            d.message("address", self.address)
            d.message("installWindow", self.installWindow)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A location's software install window: hours of its local day, at a fixed
    /// offset from UTC. An update whose required_at falls outside it becomes
    /// required at its next opening (at most a day later); once required it stays
    /// required at any hour. It includes its start and excludes its end; an end
    /// before the start spans midnight.
    public struct InstallWindow: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.InstallWindow"

        /// Minutes after local midnight the window opens, 0 to 1439.
        public var startMinute: UInt32 = 0

        /// Minutes after local midnight the window closes, 0 to 1439, not start_minute.
        public var endMinute: UInt32 = 0

        /// The location's offset from UTC in minutes, -720 to 840 (UTC+01:00 is 60).
        public var utcOffsetMinutes: Int32 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.startMinute = try reader.read(ProtobufUInt32.self, tag)
                case 2: self.endMinute = try reader.read(ProtobufUInt32.self, tag)
                case 3: self.utcOffsetMinutes = try reader.read(ProtobufSInt32.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufUInt32.self, self.startMinute, field: 1)
            writer.writeSingular(ProtobufUInt32.self, self.endMinute, field: 2)
            writer.writeSingular(ProtobufSInt32.self, self.utcOffsetMinutes, field: 3)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("startMinute", self.startMinute, isDefault: self.startMinute == 0)
            d.value("endMinute", self.endMinute, isDefault: self.endMinute == 0)
            d.value("utcOffsetMinutes", self.utcOffsetMinutes, isDefault: self.utcOffsetMinutes == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One line of a cart shown on the reader's display.
    public struct CartLineItem: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CartLineItem"

        /// What is sold.
        public var description: String = ""

        /// How many.
        public var quantity: Int64 = 0

        /// Total for the line, in the currency's minor unit (cents), may be negative
        /// for discounts.
        public var amount: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.description = try reader.read(ProtobufString.self, tag)
                case 2: self.quantity = try reader.read(ProtobufInt64.self, tag)
                case 3: self.amount = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.description, field: 1)
            writer.writeSingular(ProtobufInt64.self, self.quantity, field: 2)
            writer.writeSingular(ProtobufInt64.self, self.amount, field: 3)
            writer.writeRaw(self.unknownFields)
        }
    }

    /// A cart shown on the reader while the lane rings up items.
    public struct Cart: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.Cart"

        /// Three-letter ISO currency code, lower case ("usd").
        public var currency: String = ""

        /// The lines, in display order.
        public var lineItems: [ReaderGatewayV1.CartLineItem] = []

        /// Tax in minor units.
        public var tax: Int64 = 0

        /// Total in minor units.
        public var total: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.currency = try reader.read(ProtobufString.self, tag)
                case 2: try reader.readRepeatedMessage(tag, into: &self.lineItems)
                case 3: self.tax = try reader.read(ProtobufInt64.self, tag)
                case 4: self.total = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.currency, field: 1)
            for value in self.lineItems { writer.writeMessage(value, field: 2) }
            writer.writeSingular(ProtobufInt64.self, self.tax, field: 3)
            writer.writeSingular(ProtobufInt64.self, self.total, field: 4)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("currency", self.currency)
            d.messages("lineItems", self.lineItems)
            d.value("tax", self.tax, isDefault: self.tax == 0)
            d.value("total", self.total, isDefault: self.total == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// Parameters of collectPaymentMethod.
    public struct CollectPaymentMethodParams: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CollectPaymentMethodParams"

        /// The payment intent being paid (`pi_...`).
        public var paymentIntentID: String = ""

        /// Amount in minor units.
        public var amount: Int64 = 0

        /// Three-letter ISO currency code, lower case.
        public var currency: String = ""

        /// Do not offer tipping on the reader.
        public var skipTipping: Bool = false

        /// Ask the customer to confirm the amount before presenting a card.
        public var customerCancellationEnabled: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.paymentIntentID = try reader.read(ProtobufString.self, tag)
                case 2: self.amount = try reader.read(ProtobufInt64.self, tag)
                case 3: self.currency = try reader.read(ProtobufString.self, tag)
                case 4: self.skipTipping = try reader.read(ProtobufBool.self, tag)
                case 5: self.customerCancellationEnabled = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.paymentIntentID, field: 1)
            writer.writeSingular(ProtobufInt64.self, self.amount, field: 2)
            writer.writeSingular(ProtobufString.self, self.currency, field: 3)
            writer.writeSingular(ProtobufBool.self, self.skipTipping, field: 4)
            writer.writeSingular(ProtobufBool.self, self.customerCancellationEnabled, field: 5)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("paymentIntentID", self.paymentIntentID)
            d.value("amount", self.amount, isDefault: self.amount == 0)
            d.string("currency", self.currency)
            d.value("skipTipping", self.skipTipping, isDefault: !self.skipTipping)
            d.value("customerCancellationEnabled", self.customerCancellationEnabled, isDefault: !self.customerCancellationEnabled)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The card (or wallet) the customer presented.
    public struct PaymentMethod: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.PaymentMethod"

        /// The gateway or processor id of the payment method (`pm_...`).
        public var id: String = ""

        /// Card brand ("visa", "mastercard").
        public var brand: String = ""

        /// Last four digits.
        public var last4: String = ""

        /// Expiry month, 1 to 12.
        public var expMonth: UInt32 = 0

        /// Expiry year, four digits.
        public var expYear: UInt32 = 0

        /// How it was read ("contactless_emv", "contact_emv", "magnetic_stripe").
        public var readMethod: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.id = try reader.read(ProtobufString.self, tag)
                case 2: self.brand = try reader.read(ProtobufString.self, tag)
                case 3: self.last4 = try reader.read(ProtobufString.self, tag)
                case 4: self.expMonth = try reader.read(ProtobufUInt32.self, tag)
                case 5: self.expYear = try reader.read(ProtobufUInt32.self, tag)
                case 6: self.readMethod = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.id, field: 1)
            writer.writeSingular(ProtobufString.self, self.brand, field: 2)
            writer.writeSingular(ProtobufString.self, self.last4, field: 3)
            writer.writeSingular(ProtobufUInt32.self, self.expMonth, field: 4)
            writer.writeSingular(ProtobufUInt32.self, self.expYear, field: 5)
            writer.writeSingular(ProtobufString.self, self.readMethod, field: 6)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("id", self.id)
            d.string("brand", self.brand)
            d.string("last4", self.last4)
            d.value("expMonth", self.expMonth, isDefault: self.expMonth == 0)
            d.value("expYear", self.expYear, isDefault: self.expYear == 0)
            d.string("readMethod", self.readMethod)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// Parameters of confirmPaymentIntent.
    public struct ConfirmPaymentIntentParams: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ConfirmPaymentIntentParams"

        /// The payment intent to confirm (`pi_...`).
        public var paymentIntentID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.paymentIntentID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.paymentIntentID, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("paymentIntentID", self.paymentIntentID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The outcome of confirmPaymentIntent.
    public struct PaymentIntentResult: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.PaymentIntentResult"

        /// The payment intent (`pi_...`).
        public var paymentIntentID: String = ""

        /// Its status after the command ("succeeded", "requires_capture").
        public var status: String = ""

        /// Amount actually authorised, in minor units.
        public var amountReceived: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.paymentIntentID = try reader.read(ProtobufString.self, tag)
                case 2: self.status = try reader.read(ProtobufString.self, tag)
                case 3: self.amountReceived = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.paymentIntentID, field: 1)
            writer.writeSingular(ProtobufString.self, self.status, field: 2)
            writer.writeSingular(ProtobufInt64.self, self.amountReceived, field: 3)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("paymentIntentID", self.paymentIntentID)
            d.string("status", self.status)
            d.value("amountReceived", self.amountReceived, isDefault: self.amountReceived == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }
}
