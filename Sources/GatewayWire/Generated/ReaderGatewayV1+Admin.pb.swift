// Generated from readergateway/v1/admin.proto by proto/tools/generate_swift.py. DO NOT EDIT.
// Regenerate with `make generate-proto`; `make test` fails when this file drifts.

// swiftlint:disable all

extension ReaderGatewayV1 {

    /// Why a reader's ownership changed (or was refused).
    public struct OwnershipChangeReason: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Not known.
        public static let unspecified = OwnershipChangeReason(rawValue: 0)
        /// A session connected to a free reader.
        public static let connected = OwnershipChangeReason(rawValue: 1)
        /// A session took the reader from another session (replace).
        public static let replaced = OwnershipChangeReason(rawValue: 2)
        /// A connect with fail_if_in_use was refused because the reader was
        /// mid-transaction; the owner did not change.
        public static let refusedBusy = OwnershipChangeReason(rawValue: 3)
        /// The owner disconnected or closed its session.
        public static let released = OwnershipChangeReason(rawValue: 4)
        /// The owner's session lease ran out.
        public static let sessionExpired = OwnershipChangeReason(rawValue: 5)
        /// The reader went offline.
        public static let readerLost = OwnershipChangeReason(rawValue: 6)
        /// A fleet admin force-released the reader.
        public static let adminReleased = OwnershipChangeReason(rawValue: 7)
        /// A Bluetooth reader's link ended (mobile_disconnect_reason says why);
        /// the owner did not change by it. With link_reconnecting the owner keeps
        /// the reader through the offline bound while its device reconnects.
        public static let mobileLinkEnded = OwnershipChangeReason(rawValue: 20)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [OwnershipChangeReason] = [.unspecified, .connected, .replaced, .refusedBusy, .released, .sessionExpired, .readerLost, .adminReleased, .mobileLinkEnded]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "OWNERSHIP_CHANGE_REASON_UNSPECIFIED"
            case 1: "OWNERSHIP_CHANGE_REASON_CONNECTED"
            case 2: "OWNERSHIP_CHANGE_REASON_REPLACED"
            case 3: "OWNERSHIP_CHANGE_REASON_REFUSED_BUSY"
            case 4: "OWNERSHIP_CHANGE_REASON_RELEASED"
            case 5: "OWNERSHIP_CHANGE_REASON_SESSION_EXPIRED"
            case 6: "OWNERSHIP_CHANGE_REASON_READER_LOST"
            case 7: "OWNERSHIP_CHANGE_REASON_ADMIN_RELEASED"
            case 20: "OWNERSHIP_CHANGE_REASON_MOBILE_LINK_ENDED"
            default: nil
            }
        }
    }

    /// How far a key reaches into one kind of resource. Write includes read.
    public struct KeyAccess: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Not given: no access.
        public static let unspecified = KeyAccess(rawValue: 0)
        /// No access.
        public static let none = KeyAccess(rawValue: 1)
        /// Read only.
        public static let read = KeyAccess(rawValue: 2)
        /// Read and change.
        public static let write = KeyAccess(rawValue: 3)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [KeyAccess] = [.unspecified, .none, .read, .write]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "KEY_ACCESS_UNSPECIFIED"
            case 1: "KEY_ACCESS_NONE"
            case 2: "KEY_ACCESS_READ"
            case 3: "KEY_ACCESS_WRITE"
            default: nil
            }
        }
    }

    /// Which outcomes ListAuditEvents answers.
    public struct AuditOutcomeFilter: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Every outcome.
        public static let unspecified = AuditOutcomeFilter(rawValue: 0)
        /// Changes that succeeded (`ok`).
        public static let succeeded = AuditOutcomeFilter(rawValue: 1)
        /// Refusals (every outcome but `ok`).
        public static let refused = AuditOutcomeFilter(rawValue: 2)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [AuditOutcomeFilter] = [.unspecified, .succeeded, .refused]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "AUDIT_OUTCOME_FILTER_UNSPECIFIED"
            case 1: "AUDIT_OUTCOME_FILTER_SUCCEEDED"
            case 2: "AUDIT_OUTCOME_FILTER_REFUSED"
            default: nil
            }
        }
    }

    /// Whether an update enables or disables an endpoint.
    public struct WebhookEndpointSwitch: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Leave it as it is.
        public static let unchanged = WebhookEndpointSwitch(rawValue: 0)
        public static let enable = WebhookEndpointSwitch(rawValue: 1)
        public static let disable = WebhookEndpointSwitch(rawValue: 2)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [WebhookEndpointSwitch] = [.unchanged, .enable, .disable]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "WEBHOOK_ENDPOINT_SWITCH_UNCHANGED"
            case 1: "WEBHOOK_ENDPOINT_SWITCH_ENABLE"
            case 2: "WEBHOOK_ENDPOINT_SWITCH_DISABLE"
            default: nil
            }
        }
    }

    /// CreateLocation's request.
    public struct CreateLocationRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CreateLocationRequest"

        /// The name shown to staff.
        public var displayName: String = ""

        /// Where it is.
        public var address: ReaderGatewayV1.Address? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.displayName = try reader.read(ProtobufString.self, tag)
                case 2: self.address = try reader.readMessage(tag, as: ReaderGatewayV1.Address.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.displayName, field: 1)
            if let value = self.address { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("displayName", self.displayName)
            d.message("address", self.address)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CreateLocation's response.
    public struct CreateLocationResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CreateLocationResponse"

        /// The new location.
        public var location: ReaderGatewayV1.Location? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.location = try reader.readMessage(tag, as: ReaderGatewayV1.Location.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.location { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("location", self.location)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListLocations's request.
    public struct ListLocationsRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListLocationsRequest"

        /// At most this many; 0 for the server default (100).
        public var limit: UInt32 = 0

        /// From a previous response's next_page_token; empty for the first page.
        public var pageToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.limit = try reader.read(ProtobufUInt32.self, tag)
                case 2: self.pageToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufUInt32.self, self.limit, field: 1)
            writer.writeSingular(ProtobufString.self, self.pageToken, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("limit", self.limit, isDefault: self.limit == 0)
            d.string("pageToken", self.pageToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListLocations's response.
    public struct ListLocationsResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListLocationsResponse"

        /// The locations, oldest first.
        public var locations: [ReaderGatewayV1.Location] = []

        /// Pass to the next request; empty on the last page.
        public var nextPageToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.locations)
                case 2: self.nextPageToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.locations { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufString.self, self.nextPageToken, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("locations", self.locations)
            d.string("nextPageToken", self.nextPageToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// UpdateLocation's request.
    public struct UpdateLocationRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.UpdateLocationRequest"

        /// The location (`tml_...`).
        public var locationID: String = ""

        /// The new display name; unchanged when absent.
        public var displayName: String? = nil

        /// The new address; unchanged when absent.
        public var address: ReaderGatewayV1.Address? = nil

        /// The new software install window (PROTOCOL.md section 16); unchanged when
        /// absent. INVALID_REQUEST for a window out of range.
        public var installWindow: ReaderGatewayV1.InstallWindow? = nil

        /// Removes the install window (updates become required at their
        /// required_at, any hour). INVALID_REQUEST together with install_window.
        public var clearInstallWindow: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.locationID = try reader.read(ProtobufString.self, tag)
                case 2: self.displayName = try reader.read(ProtobufString.self, tag)
                case 3: self.address = try reader.readMessage(tag, as: ReaderGatewayV1.Address.self)
                case 4: self.installWindow = try reader.readMessage(tag, as: ReaderGatewayV1.InstallWindow.self)
                case 5: self.clearInstallWindow = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.locationID, field: 1)
            if let value = self.displayName { writer.writeAlways(ProtobufString.self, value, field: 2) }
            if let value = self.address { writer.writeMessage(value, field: 3) }
            if let value = self.installWindow { writer.writeMessage(value, field: 4) }
            writer.writeSingular(ProtobufBool.self, self.clearInstallWindow, field: 5)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("locationID", self.locationID)
            if let value = self.displayName { d.string("displayName", value) }
            d.message("address", self.address)
            d.message("installWindow", self.installWindow)
            d.value("clearInstallWindow", self.clearInstallWindow, isDefault: !self.clearInstallWindow)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// UpdateLocation's response.
    public struct UpdateLocationResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.UpdateLocationResponse"

        /// The location as it is now.
        public var location: ReaderGatewayV1.Location? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.location = try reader.readMessage(tag, as: ReaderGatewayV1.Location.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.location { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("location", self.location)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RegisterReader's request.
    public struct RegisterReaderRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RegisterReaderRequest"

        /// The code the reader displays.
        public var registrationCode: String = ""

        /// The reader's label.
        public var label: String = ""

        /// The location to register it to.
        public var locationID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.registrationCode = try reader.read(ProtobufString.self, tag)
                case 2: self.label = try reader.read(ProtobufString.self, tag)
                case 3: self.locationID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.registrationCode, field: 1)
            writer.writeSingular(ProtobufString.self, self.label, field: 2)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 3)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("registrationCode", self.registrationCode)
            d.string("label", self.label)
            d.string("locationID", self.locationID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RegisterReader's response.
    public struct RegisterReaderResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RegisterReaderResponse"

        /// The registered reader, as it is once its link went online.
        public var reader: ReaderGatewayV1.Reader? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.reader = try reader.readMessage(tag, as: ReaderGatewayV1.Reader.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.reader { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("reader", self.reader)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RegisterReadersBySerial's request.
    public struct RegisterReadersBySerialRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RegisterReadersBySerialRequest"

        /// The serial numbers, in order ("a,b,c" on the command line).
        public var serialNumbers: [String] = []

        /// Readers are labelled "<prefix> 1", "<prefix> 2", ... With one serial and
        /// a prefix, the label is the prefix alone.
        public var labelPrefix: String = ""

        /// The location to register them to.
        public var locationID: String = ""

        /// The hardware model, when known.
        public var deviceType: ReaderGatewayV1.DeviceType = ReaderGatewayV1.DeviceType(rawValue: 0)

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeated(ProtobufString.self, tag, into: &self.serialNumbers)
                case 2: self.labelPrefix = try reader.read(ProtobufString.self, tag)
                case 3: self.locationID = try reader.read(ProtobufString.self, tag)
                case 4: self.deviceType = try reader.read(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeRepeated(ProtobufString.self, self.serialNumbers, field: 1)
            writer.writeSingular(ProtobufString.self, self.labelPrefix, field: 2)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 3)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, self.deviceType, field: 4)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.strings("serialNumbers", self.serialNumbers)
            d.string("labelPrefix", self.labelPrefix)
            d.string("locationID", self.locationID)
            d.value("deviceType", self.deviceType, isDefault: self.deviceType.rawValue == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RegisterReadersBySerial's response.
    public struct RegisterReadersBySerialResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RegisterReadersBySerialResponse"

        /// The registered readers, in request order.
        public var readers: [ReaderGatewayV1.Reader] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.readers)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.readers { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("readers", self.readers)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// DeleteReader's request.
    public struct DeleteReaderRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DeleteReaderRequest"

        /// The reader (`tmr_...`).
        public var readerID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// DeleteReader's response.
    public struct DeleteReaderResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DeleteReaderResponse"

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

    /// ListReaders's request.
    public struct ListReadersRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListReadersRequest"

        /// Only readers at this location; empty for all.
        public var locationID: String = ""

        /// Only readers with this status; UNSPECIFIED for all.
        public var networkStatus: ReaderGatewayV1.ReaderNetworkStatus = ReaderGatewayV1.ReaderNetworkStatus(rawValue: 0)

        /// At most this many; 0 for the server default (100).
        public var limit: UInt32 = 0

        /// From a previous response's next_page_token.
        public var pageToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.locationID = try reader.read(ProtobufString.self, tag)
                case 2: self.networkStatus = try reader.read(ProtobufEnumField<ReaderGatewayV1.ReaderNetworkStatus>.self, tag)
                case 3: self.limit = try reader.read(ProtobufUInt32.self, tag)
                case 4: self.pageToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.locationID, field: 1)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.ReaderNetworkStatus>.self, self.networkStatus, field: 2)
            writer.writeSingular(ProtobufUInt32.self, self.limit, field: 3)
            writer.writeSingular(ProtobufString.self, self.pageToken, field: 4)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("locationID", self.locationID)
            d.value("networkStatus", self.networkStatus, isDefault: self.networkStatus.rawValue == 0)
            d.value("limit", self.limit, isDefault: self.limit == 0)
            d.string("pageToken", self.pageToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListReaders's response.
    public struct ListReadersResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListReadersResponse"

        /// The readers.
        public var readers: [ReaderGatewayV1.Reader] = []

        /// Pass to the next request; empty on the last page.
        public var nextPageToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.readers)
                case 2: self.nextPageToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.readers { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufString.self, self.nextPageToken, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("readers", self.readers)
            d.string("nextPageToken", self.nextPageToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// GetReader's request.
    public struct GetReaderRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.GetReaderRequest"

        /// The reader (`tmr_...`).
        public var readerID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// GetReader's response.
    public struct GetReaderResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.GetReaderResponse"

        /// The reader.
        public var reader: ReaderGatewayV1.Reader? = nil

        /// Its current ownership.
        public var ownership: ReaderGatewayV1.ReaderOwnership? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.reader = try reader.readMessage(tag, as: ReaderGatewayV1.Reader.self)
                case 2: self.ownership = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderOwnership.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.reader { writer.writeMessage(value, field: 1) }
            if let value = self.ownership { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("reader", self.reader)
            d.message("ownership", self.ownership)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The session that owns a reader right now (in a history entry: the session
    /// the entry names, as it was then).
    public struct ReaderOwner: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderOwner"

        /// The owning session's id.
        public var sessionID: String = ""

        /// The owning session's pos device id.
        public var posDeviceID: String = ""

        /// The owning session's lane label.
        public var laneLabel: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionID = try reader.read(ProtobufString.self, tag)
                case 2: self.posDeviceID = try reader.read(ProtobufString.self, tag)
                case 3: self.laneLabel = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionID, field: 1)
            writer.writeSingular(ProtobufString.self, self.posDeviceID, field: 2)
            writer.writeSingular(ProtobufString.self, self.laneLabel, field: 3)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("sessionID", self.sessionID)
            d.string("posDeviceID", self.posDeviceID)
            d.string("laneLabel", self.laneLabel)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// Who owns a reader right now.
    public struct ReaderOwnership: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderOwnership"

        /// The reader.
        public var readerID: String = ""

        /// Its label, for tables.
        public var readerLabel: String = ""

        /// The owner; absent when no session owns the reader.
        public var owner: ReaderGatewayV1.ReaderOwner? = nil

        /// Since when the current owner (or no owner) holds.
        public var sinceUnixMs: Int64 = 0

        /// Increases by one at every change of owner of this reader.
        public var generation: UInt64 = 0

        /// True while a collectPaymentMethod or confirmPaymentIntent runs.
        public var inTransaction: Bool = false

        /// Whether the reader is online.
        public var networkStatus: ReaderGatewayV1.ReaderNetworkStatus = ReaderGatewayV1.ReaderNetworkStatus(rawValue: 0)

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.readerLabel = try reader.read(ProtobufString.self, tag)
                case 3: self.owner = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderOwner.self)
                case 4: self.sinceUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 5: self.generation = try reader.read(ProtobufUInt64.self, tag)
                case 6: self.inTransaction = try reader.read(ProtobufBool.self, tag)
                case 7: self.networkStatus = try reader.read(ProtobufEnumField<ReaderGatewayV1.ReaderNetworkStatus>.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            writer.writeSingular(ProtobufString.self, self.readerLabel, field: 2)
            if let value = self.owner { writer.writeMessage(value, field: 3) }
            writer.writeSingular(ProtobufInt64.self, self.sinceUnixMs, field: 4)
            writer.writeSingular(ProtobufUInt64.self, self.generation, field: 5)
            writer.writeSingular(ProtobufBool.self, self.inTransaction, field: 6)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.ReaderNetworkStatus>.self, self.networkStatus, field: 7)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.string("readerLabel", self.readerLabel)
            d.message("owner", self.owner)
            d.value("sinceUnixMs", self.sinceUnixMs, isDefault: self.sinceUnixMs == 0)
            d.value("generation", self.generation, isDefault: self.generation == 0)
            d.value("inTransaction", self.inTransaction, isDefault: !self.inTransaction)
            d.value("networkStatus", self.networkStatus, isDefault: self.networkStatus.rawValue == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One change of a reader's ownership.
    public struct OwnershipHistoryEntry: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.OwnershipHistoryEntry"

        /// The reader.
        public var readerID: String = ""

        /// What happened.
        public var reason: ReaderGatewayV1.OwnershipChangeReason = ReaderGatewayV1.OwnershipChangeReason(rawValue: 0)

        /// When.
        public var atUnixMs: Int64 = 0

        /// The generation after the change (unchanged for REFUSED_BUSY).
        public var generation: UInt64 = 0

        /// The session that acted (the new owner, the refused caller, or the
        /// releasing owner); absent for READER_LOST and ADMIN_RELEASED.
        public var session: ReaderGatewayV1.ReaderOwner? = nil

        /// For REPLACED: the session that lost the reader.
        public var previousOwner: ReaderGatewayV1.ReaderOwner? = nil

        /// For MOBILE_LINK_ENDED: why the Bluetooth reader's link ended.
        public var mobileDisconnectReason: ReaderGatewayV1.MobileDisconnectReason = ReaderGatewayV1.MobileDisconnectReason(rawValue: 0)

        /// For MOBILE_LINK_ENDED: true when its device was reconnecting (the owner
        /// was kept through the offline bound).
        public var linkReconnecting: Bool = false

        /// For ADMIN_RELEASED: the key that forced the release (`key_...`; empty
        /// for the account key of an older console session, and for releases
        /// recorded before the audit log).
        public var releasedByKeyID: String = ""

        /// For ADMIN_RELEASED: that key's name when it released the reader.
        public var releasedByKeyName: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.reason = try reader.read(ProtobufEnumField<ReaderGatewayV1.OwnershipChangeReason>.self, tag)
                case 3: self.atUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 4: self.generation = try reader.read(ProtobufUInt64.self, tag)
                case 5: self.session = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderOwner.self)
                case 6: self.previousOwner = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderOwner.self)
                case 20: self.mobileDisconnectReason = try reader.read(ProtobufEnumField<ReaderGatewayV1.MobileDisconnectReason>.self, tag)
                case 21: self.linkReconnecting = try reader.read(ProtobufBool.self, tag)
                case 22: self.releasedByKeyID = try reader.read(ProtobufString.self, tag)
                case 23: self.releasedByKeyName = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.OwnershipChangeReason>.self, self.reason, field: 2)
            writer.writeSingular(ProtobufInt64.self, self.atUnixMs, field: 3)
            writer.writeSingular(ProtobufUInt64.self, self.generation, field: 4)
            if let value = self.session { writer.writeMessage(value, field: 5) }
            if let value = self.previousOwner { writer.writeMessage(value, field: 6) }
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.MobileDisconnectReason>.self, self.mobileDisconnectReason, field: 20)
            writer.writeSingular(ProtobufBool.self, self.linkReconnecting, field: 21)
            writer.writeSingular(ProtobufString.self, self.releasedByKeyID, field: 22)
            writer.writeSingular(ProtobufString.self, self.releasedByKeyName, field: 23)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.value("reason", self.reason, isDefault: self.reason.rawValue == 0)
            d.value("atUnixMs", self.atUnixMs, isDefault: self.atUnixMs == 0)
            d.value("generation", self.generation, isDefault: self.generation == 0)
            d.message("session", self.session)
            d.message("previousOwner", self.previousOwner)
            d.value("mobileDisconnectReason", self.mobileDisconnectReason, isDefault: self.mobileDisconnectReason.rawValue == 0)
            d.value("linkReconnecting", self.linkReconnecting, isDefault: !self.linkReconnecting)
            d.string("releasedByKeyID", self.releasedByKeyID)
            d.string("releasedByKeyName", self.releasedByKeyName)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListReaderOwnership's request.
    public struct ListReaderOwnershipRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListReaderOwnershipRequest"

        /// Only readers at this location; empty for all.
        public var locationID: String = ""

        /// Only readers with an owner.
        public var ownedOnly: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.locationID = try reader.read(ProtobufString.self, tag)
                case 2: self.ownedOnly = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.locationID, field: 1)
            writer.writeSingular(ProtobufBool.self, self.ownedOnly, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("locationID", self.locationID)
            d.value("ownedOnly", self.ownedOnly, isDefault: !self.ownedOnly)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListReaderOwnership's response.
    public struct ListReaderOwnershipResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListReaderOwnershipResponse"

        /// One entry per reader.
        public var ownerships: [ReaderGatewayV1.ReaderOwnership] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.ownerships)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.ownerships { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("ownerships", self.ownerships)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListOwnershipHistory's request.
    public struct ListOwnershipHistoryRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListOwnershipHistoryRequest"

        /// The reader.
        public var readerID: String = ""

        /// At most this many entries; 0 for the server default (50).
        public var limit: UInt32 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.limit = try reader.read(ProtobufUInt32.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            writer.writeSingular(ProtobufUInt32.self, self.limit, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.value("limit", self.limit, isDefault: self.limit == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListOwnershipHistory's response.
    public struct ListOwnershipHistoryResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListOwnershipHistoryResponse"

        /// Newest first.
        public var entries: [ReaderGatewayV1.OwnershipHistoryEntry] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.entries)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.entries { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("entries", self.entries)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ForceReleaseReader's request.
    public struct ForceReleaseReaderRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ForceReleaseReaderRequest"

        /// The reader.
        public var readerID: String = ""

        /// Release only if this is still the generation (OWNERSHIP_CHANGED
        /// otherwise); absent to release whatever the owner.
        public var expectedGeneration: UInt64? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.expectedGeneration = try reader.read(ProtobufUInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            if let value = self.expectedGeneration { writer.writeAlways(ProtobufUInt64.self, value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            if let value = self.expectedGeneration { d.value("expectedGeneration", value, isDefault: false) }
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ForceReleaseReader's response.
    public struct ForceReleaseReaderResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ForceReleaseReaderResponse"

        /// The ownership after the release (no owner).
        public var ownership: ReaderGatewayV1.ReaderOwnership? = nil

        /// The owner that lost the reader; absent if it had none.
        public var releasedOwner: ReaderGatewayV1.ReaderOwner? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.ownership = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderOwnership.self)
                case 2: self.releasedOwner = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderOwner.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.ownership { writer.writeMessage(value, field: 1) }
            if let value = self.releasedOwner { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("ownership", self.ownership)
            d.message("releasedOwner", self.releasedOwner)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CreateConnectionToken's request.
    public struct CreateConnectionTokenRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CreateConnectionTokenRequest"

        /// Restrict the token to one location; empty for the whole account.
        public var locationID: String = ""

        /// Lifetime; 0 for the server default (10 minutes).
        public var ttlMs: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.locationID = try reader.read(ProtobufString.self, tag)
                case 2: self.ttlMs = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.locationID, field: 1)
            writer.writeSingular(ProtobufInt64.self, self.ttlMs, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("locationID", self.locationID)
            d.value("ttlMs", self.ttlMs, isDefault: self.ttlMs == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CreateConnectionToken's response.
    public struct CreateConnectionTokenResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CreateConnectionTokenResponse"

        /// The secret to hand to the point-of-sale app (`pst_...`).
        public var secret: String = ""

        /// When it stops opening sessions.
        public var expiresUnixMs: Int64 = 0

        /// The location it is restricted to, if any.
        public var locationID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.secret = try reader.read(ProtobufString.self, tag)
                case 2: self.expiresUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 3: self.locationID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.secret, field: 1)
            writer.writeSingular(ProtobufInt64.self, self.expiresUnixMs, field: 2)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 3)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("secret", self.secret)
            d.value("expiresUnixMs", self.expiresUnixMs, isDefault: self.expiresUnixMs == 0)
            d.string("locationID", self.locationID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListSessions's request.
    public struct ListSessionsRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListSessionsRequest"

        /// Only sessions whose token is scoped to this location; empty for all.
        public var locationID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.locationID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.locationID, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("locationID", self.locationID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A live point-of-sale session.
    public struct SessionInfo: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.SessionInfo"

        /// The session's public id.
        public var sessionID: String = ""

        /// Its pos device id.
        public var posDeviceID: String = ""

        /// Its lane label.
        public var laneLabel: String = ""

        /// The reader it owns; empty if none.
        public var connectedReaderID: String = ""

        /// When it was opened.
        public var openedUnixMs: Int64 = 0

        /// When it last called or heartbeated.
        public var lastSeenUnixMs: Int64 = 0

        /// When its lease runs out.
        public var leaseExpiresUnixMs: Int64 = 0

        /// Whether it has a live connection right now (false while awaiting resume).
        public var connected: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionID = try reader.read(ProtobufString.self, tag)
                case 2: self.posDeviceID = try reader.read(ProtobufString.self, tag)
                case 3: self.laneLabel = try reader.read(ProtobufString.self, tag)
                case 4: self.connectedReaderID = try reader.read(ProtobufString.self, tag)
                case 5: self.openedUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 6: self.lastSeenUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 7: self.leaseExpiresUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 8: self.connected = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionID, field: 1)
            writer.writeSingular(ProtobufString.self, self.posDeviceID, field: 2)
            writer.writeSingular(ProtobufString.self, self.laneLabel, field: 3)
            writer.writeSingular(ProtobufString.self, self.connectedReaderID, field: 4)
            writer.writeSingular(ProtobufInt64.self, self.openedUnixMs, field: 5)
            writer.writeSingular(ProtobufInt64.self, self.lastSeenUnixMs, field: 6)
            writer.writeSingular(ProtobufInt64.self, self.leaseExpiresUnixMs, field: 7)
            writer.writeSingular(ProtobufBool.self, self.connected, field: 8)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("sessionID", self.sessionID)
            d.string("posDeviceID", self.posDeviceID)
            d.string("laneLabel", self.laneLabel)
            d.string("connectedReaderID", self.connectedReaderID)
            d.value("openedUnixMs", self.openedUnixMs, isDefault: self.openedUnixMs == 0)
            d.value("lastSeenUnixMs", self.lastSeenUnixMs, isDefault: self.lastSeenUnixMs == 0)
            d.value("leaseExpiresUnixMs", self.leaseExpiresUnixMs, isDefault: self.leaseExpiresUnixMs == 0)
            d.value("connected", self.connected, isDefault: !self.connected)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListSessions's response.
    public struct ListSessionsResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListSessionsResponse"

        /// The sessions.
        public var sessions: [ReaderGatewayV1.SessionInfo] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.sessions)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.sessions { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("sessions", self.sessions)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListSoftwareUpdates's request.
    public struct ListSoftwareUpdatesRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListSoftwareUpdatesRequest"

        /// Only this device type; UNSPECIFIED for all.
        public var deviceType: ReaderGatewayV1.DeviceType = ReaderGatewayV1.DeviceType(rawValue: 0)

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.deviceType = try reader.read(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, self.deviceType, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("deviceType", self.deviceType, isDefault: self.deviceType.rawValue == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListSoftwareUpdates's response.
    public struct ListSoftwareUpdatesResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListSoftwareUpdatesResponse"

        /// The catalog's updates.
        public var updates: [ReaderGatewayV1.ReaderSoftwareUpdate] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.updates)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.updates { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("updates", self.updates)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// AddSoftwareUpdate's request.
    public struct AddSoftwareUpdateRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.AddSoftwareUpdateRequest"

        /// The update (device_type, version, components, duration_estimate,
        /// required_at_unix_ms; `required` and `added_unix_ms` are ignored).
        public var update: ReaderGatewayV1.ReaderSoftwareUpdate? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.update = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderSoftwareUpdate.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.update { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("update", self.update)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// AddSoftwareUpdate's response.
    public struct AddSoftwareUpdateResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.AddSoftwareUpdateResponse"

        /// The update as stored.
        public var update: ReaderGatewayV1.ReaderSoftwareUpdate? = nil

        /// True when it replaced an update of the same device type and version.
        public var replaced: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.update = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderSoftwareUpdate.self)
                case 2: self.replaced = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.update { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufBool.self, self.replaced, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("update", self.update)
            d.value("replaced", self.replaced, isDefault: !self.replaced)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RemoveSoftwareUpdate's request.
    public struct RemoveSoftwareUpdateRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RemoveSoftwareUpdateRequest"

        /// The update's device type.
        public var deviceType: ReaderGatewayV1.DeviceType = ReaderGatewayV1.DeviceType(rawValue: 0)

        /// The update's version.
        public var version: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.deviceType = try reader.read(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, tag)
                case 2: self.version = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, self.deviceType, field: 1)
            writer.writeSingular(ProtobufString.self, self.version, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("deviceType", self.deviceType, isDefault: self.deviceType.rawValue == 0)
            d.string("version", self.version)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RemoveSoftwareUpdate's response.
    public struct RemoveSoftwareUpdateResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RemoveSoftwareUpdateResponse"

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

    /// WatchFleet's request.
    public struct WatchFleetRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.WatchFleetRequest"

        /// Only readers at this location; empty for every location of the account.
        public var locationID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.locationID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.locationID, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("locationID", self.locationID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A reader as the fleet console shows it: what it is, whether it is online,
    /// what it does, and who holds it since when.
    public struct FleetReader: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.FleetReader"

        /// The reader: label, serial, device type, software version, location,
        /// online or offline, activity, battery level when known.
        public var reader: ReaderGatewayV1.Reader? = nil

        /// The session holding the reader (lane label and pos device); absent when
        /// free.
        public var holder: ReaderGatewayV1.ReaderOwner? = nil

        /// Since when the holder (or nobody) holds it; 0 when it never had one.
        public var holderSinceUnixMs: Int64 = 0

        /// True while a collectPaymentMethod or confirmPaymentIntent runs.
        public var inTransaction: Bool = false

        /// The ownership generation (increases at every change of holder).
        public var generation: UInt64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.reader = try reader.readMessage(tag, as: ReaderGatewayV1.Reader.self)
                case 2: self.holder = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderOwner.self)
                case 3: self.holderSinceUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 4: self.inTransaction = try reader.read(ProtobufBool.self, tag)
                case 5: self.generation = try reader.read(ProtobufUInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.reader { writer.writeMessage(value, field: 1) }
            if let value = self.holder { writer.writeMessage(value, field: 2) }
            writer.writeSingular(ProtobufInt64.self, self.holderSinceUnixMs, field: 3)
            writer.writeSingular(ProtobufBool.self, self.inTransaction, field: 4)
            writer.writeSingular(ProtobufUInt64.self, self.generation, field: 5)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("reader", self.reader)
            d.message("holder", self.holder)
            d.value("holderSinceUnixMs", self.holderSinceUnixMs, isDefault: self.holderSinceUnixMs == 0)
            d.value("inTransaction", self.inTransaction, isDefault: !self.inTransaction)
            d.value("generation", self.generation, isDefault: self.generation == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One page of WatchFleet's snapshot.
    public struct FleetSnapshot: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.FleetSnapshot"

        /// The readers of this page.
        public var readers: [ReaderGatewayV1.FleetReader] = []

        /// The account's locations (on the first page only; the location asked for
        /// alone when the request names one).
        public var locations: [ReaderGatewayV1.Location] = []

        /// True on the last page: changes follow.
        public var complete: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.readers)
                case 2: try reader.readRepeatedMessage(tag, into: &self.locations)
                case 3: self.complete = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.readers { writer.writeMessage(value, field: 1) }
            for value in self.locations { writer.writeMessage(value, field: 2) }
            writer.writeSingular(ProtobufBool.self, self.complete, field: 3)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("readers", self.readers)
            d.messages("locations", self.locations)
            d.value("complete", self.complete, isDefault: !self.complete)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One message of WatchFleet's stream.
    public struct WatchFleetEvent: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.WatchFleetEvent"

        /// What it says.
        public enum Event: Equatable, Sendable {
            /// A page of the snapshot (every page comes before the first change).
            case snapshot(ReaderGatewayV1.FleetSnapshot)
            /// A reader was registered or changed: its whole state now.
            case readerChanged(ReaderGatewayV1.FleetReader)
            /// A reader was deleted (its id).
            case readerRemoved(String)
        }

        /// When the gateway sent it.
        public var atUnixMs: Int64 = 0

        /// What it says.
        public var event: Event? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.atUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 2: self.event = .snapshot(try reader.readMessage(tag, as: ReaderGatewayV1.FleetSnapshot.self))
                case 3: self.event = .readerChanged(try reader.readMessage(tag, as: ReaderGatewayV1.FleetReader.self))
                case 4: self.event = .readerRemoved(try reader.read(ProtobufString.self, tag))
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufInt64.self, self.atUnixMs, field: 1)
            switch self.event {
            case .snapshot(let value)?: writer.writeMessage(value, field: 2)
            case .readerChanged(let value)?: writer.writeMessage(value, field: 3)
            case .readerRemoved(let value)?: writer.writeAlways(ProtobufString.self, value, field: 4)
            case nil: break
            }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("atUnixMs", self.atUnixMs, isDefault: self.atUnixMs == 0)
            switch self.event {
            case .snapshot(let value)?: d.message("snapshot", value)
            case .readerChanged(let value)?: d.message("readerChanged", value)
            case .readerRemoved(let value)?: d.string("readerRemoved", value)
            case nil: break
            }
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A key's permission per resource.
    public struct ApiKeyPermissions: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ApiKeyPermissions"

        /// Locations: list (read); create, rename, install windows (write).
        public var locations: ReaderGatewayV1.KeyAccess = ReaderGatewayV1.KeyAccess(rawValue: 0)

        /// Readers: list, get, watch (read); register, delete (write).
        public var readers: ReaderGatewayV1.KeyAccess = ReaderGatewayV1.KeyAccess(rawValue: 0)

        /// Ownership: who owns a reader, its history, live sessions (read); forced
        /// releases (write).
        public var ownership: ReaderGatewayV1.KeyAccess = ReaderGatewayV1.KeyAccess(rawValue: 0)

        /// Connection tokens for point-of-sale sessions: minting one is write.
        public var tokens: ReaderGatewayV1.KeyAccess = ReaderGatewayV1.KeyAccess(rawValue: 0)

        /// Software update catalog: list (read); add, remove (write).
        public var updates: ReaderGatewayV1.KeyAccess = ReaderGatewayV1.KeyAccess(rawValue: 0)

        /// Webhooks (reserved for the webhook endpoints).
        public var webhooks: ReaderGatewayV1.KeyAccess = ReaderGatewayV1.KeyAccess(rawValue: 0)

        /// The event log: reading it (read).
        public var events: ReaderGatewayV1.KeyAccess = ReaderGatewayV1.KeyAccess(rawValue: 0)

        /// Keys: list (read); create, roll, revoke (write). The console shows the
        /// keys to a key that may read them.
        public var keys: ReaderGatewayV1.KeyAccess = ReaderGatewayV1.KeyAccess(rawValue: 0)

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.locations = try reader.read(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, tag)
                case 2: self.readers = try reader.read(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, tag)
                case 3: self.ownership = try reader.read(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, tag)
                case 4: self.tokens = try reader.read(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, tag)
                case 5: self.updates = try reader.read(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, tag)
                case 6: self.webhooks = try reader.read(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, tag)
                case 7: self.events = try reader.read(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, tag)
                case 8: self.keys = try reader.read(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, self.locations, field: 1)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, self.readers, field: 2)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, self.ownership, field: 3)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, self.tokens, field: 4)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, self.updates, field: 5)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, self.webhooks, field: 6)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, self.events, field: 7)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.KeyAccess>.self, self.keys, field: 8)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("locations", self.locations, isDefault: self.locations.rawValue == 0)
            d.value("readers", self.readers, isDefault: self.readers.rawValue == 0)
            d.value("ownership", self.ownership, isDefault: self.ownership.rawValue == 0)
            d.value("tokens", self.tokens, isDefault: self.tokens.rawValue == 0)
            d.value("updates", self.updates, isDefault: self.updates.rawValue == 0)
            d.value("webhooks", self.webhooks, isDefault: self.webhooks.rawValue == 0)
            d.value("events", self.events, isDefault: self.events.rawValue == 0)
            d.value("keys", self.keys, isDefault: self.keys.rawValue == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A secret key of the account (never its secret).
    public struct ApiKey: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ApiKey"

        /// Its id (`key_...`).
        public var id: String = ""

        /// Its name, for people.
        public var name: String = ""

        /// What it may do.
        public var permissions: ReaderGatewayV1.ApiKeyPermissions? = nil

        /// The locations it is limited to; empty for every location.
        public var locationIDs: [String] = []

        /// When it stops working; 0 for never.
        public var expiresUnixMs: Int64 = 0

        /// When it was created.
        public var createdUnixMs: Int64 = 0

        /// When it was last used (to the minute); 0 for never.
        public var lastUsedUnixMs: Int64 = 0

        /// When it was last rolled; 0 for never.
        public var rolledUnixMs: Int64 = 0

        /// Until when the secret it had before its last roll still works; 0 when no
        /// old secret works.
        public var previousSecretExpiresUnixMs: Int64 = 0

        /// When it was revoked; 0 while it is not.
        public var revokedUnixMs: Int64 = 0

        /// The last four characters of its current secret, to tell keys apart.
        public var secretLast4: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.id = try reader.read(ProtobufString.self, tag)
                case 2: self.name = try reader.read(ProtobufString.self, tag)
                case 3: self.permissions = try reader.readMessage(tag, as: ReaderGatewayV1.ApiKeyPermissions.self)
                case 4: try reader.readRepeated(ProtobufString.self, tag, into: &self.locationIDs)
                case 5: self.expiresUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 6: self.createdUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 7: self.lastUsedUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 8: self.rolledUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 9: self.previousSecretExpiresUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 10: self.revokedUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 11: self.secretLast4 = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.id, field: 1)
            writer.writeSingular(ProtobufString.self, self.name, field: 2)
            if let value = self.permissions { writer.writeMessage(value, field: 3) }
            writer.writeRepeated(ProtobufString.self, self.locationIDs, field: 4)
            writer.writeSingular(ProtobufInt64.self, self.expiresUnixMs, field: 5)
            writer.writeSingular(ProtobufInt64.self, self.createdUnixMs, field: 6)
            writer.writeSingular(ProtobufInt64.self, self.lastUsedUnixMs, field: 7)
            writer.writeSingular(ProtobufInt64.self, self.rolledUnixMs, field: 8)
            writer.writeSingular(ProtobufInt64.self, self.previousSecretExpiresUnixMs, field: 9)
            writer.writeSingular(ProtobufInt64.self, self.revokedUnixMs, field: 10)
            writer.writeSingular(ProtobufString.self, self.secretLast4, field: 11)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("id", self.id)
            d.string("name", self.name)
            d.message("permissions", self.permissions)
            d.strings("locationIDs", self.locationIDs)
            d.value("expiresUnixMs", self.expiresUnixMs, isDefault: self.expiresUnixMs == 0)
            d.value("createdUnixMs", self.createdUnixMs, isDefault: self.createdUnixMs == 0)
            d.value("lastUsedUnixMs", self.lastUsedUnixMs, isDefault: self.lastUsedUnixMs == 0)
            d.value("rolledUnixMs", self.rolledUnixMs, isDefault: self.rolledUnixMs == 0)
            d.value("previousSecretExpiresUnixMs", self.previousSecretExpiresUnixMs, isDefault: self.previousSecretExpiresUnixMs == 0)
            d.value("revokedUnixMs", self.revokedUnixMs, isDefault: self.revokedUnixMs == 0)
            d.string("secretLast4", self.secretLast4)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CreateApiKey's request.
    public struct CreateApiKeyRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CreateApiKeyRequest"

        /// Its name, for people (required).
        public var name: String = ""

        /// What it may do; a resource left out gets no access.
        public var permissions: ReaderGatewayV1.ApiKeyPermissions? = nil

        /// Limit it to these locations; empty for every location.
        public var locationIDs: [String] = []

        /// When it stops working; 0 for never.
        public var expiresUnixMs: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.name = try reader.read(ProtobufString.self, tag)
                case 2: self.permissions = try reader.readMessage(tag, as: ReaderGatewayV1.ApiKeyPermissions.self)
                case 3: try reader.readRepeated(ProtobufString.self, tag, into: &self.locationIDs)
                case 4: self.expiresUnixMs = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.name, field: 1)
            if let value = self.permissions { writer.writeMessage(value, field: 2) }
            writer.writeRepeated(ProtobufString.self, self.locationIDs, field: 3)
            writer.writeSingular(ProtobufInt64.self, self.expiresUnixMs, field: 4)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("name", self.name)
            d.message("permissions", self.permissions)
            d.strings("locationIDs", self.locationIDs)
            d.value("expiresUnixMs", self.expiresUnixMs, isDefault: self.expiresUnixMs == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CreateApiKey's response.
    public struct CreateApiKeyResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CreateApiKeyResponse"

        /// The key.
        public var key: ReaderGatewayV1.ApiKey? = nil

        /// Its secret (`sk_...`), shown once.
        public var secret: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.key = try reader.readMessage(tag, as: ReaderGatewayV1.ApiKey.self)
                case 2: self.secret = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.key { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufString.self, self.secret, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("key", self.key)
            d.secret("secret", self.secret)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListApiKeys's request.
    public struct ListApiKeysRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListApiKeysRequest"

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

    /// ListApiKeys's response.
    public struct ListApiKeysResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListApiKeysResponse"

        /// The account's keys (those the calling key's locations cover), oldest first.
        public var keys: [ReaderGatewayV1.ApiKey] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.keys)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.keys { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("keys", self.keys)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RollApiKey's request.
    public struct RollApiKeyRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RollApiKeyRequest"

        /// The key to roll.
        public var keyID: String = ""

        /// How long the old secret keeps working; 0 for 24 hours, at most 7 days.
        public var overlapMs: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.keyID = try reader.read(ProtobufString.self, tag)
                case 2: self.overlapMs = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.keyID, field: 1)
            writer.writeSingular(ProtobufInt64.self, self.overlapMs, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("keyID", self.keyID)
            d.value("overlapMs", self.overlapMs, isDefault: self.overlapMs == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RollApiKey's response.
    public struct RollApiKeyResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RollApiKeyResponse"

        /// The key, with its new overlap.
        public var key: ReaderGatewayV1.ApiKey? = nil

        /// Its new secret (`sk_...`), shown once.
        public var secret: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.key = try reader.readMessage(tag, as: ReaderGatewayV1.ApiKey.self)
                case 2: self.secret = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.key { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufString.self, self.secret, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("key", self.key)
            d.secret("secret", self.secret)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RevokeApiKey's request.
    public struct RevokeApiKeyRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RevokeApiKeyRequest"

        /// The key to revoke.
        public var keyID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.keyID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.keyID, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("keyID", self.keyID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RevokeApiKey's response.
    public struct RevokeApiKeyResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RevokeApiKeyResponse"

        /// The key, revoked.
        public var key: ReaderGatewayV1.ApiKey? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.key = try reader.readMessage(tag, as: ReaderGatewayV1.ApiKey.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.key { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("key", self.key)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One entry of the event log (PROTOCOL.md section 20, "Events").
    public struct Event: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.Event"

        /// `evt_` and 32 hex digits.
        public var id: String = ""

        /// What happened: `reader.online`, `reader.ownership.replaced`, ...
        public var type: String = ""

        /// When it was written.
        public var createdUnixMs: Int64 = 0

        /// The reader it concerns (`tmr_...`); empty when none.
        public var readerID: String = ""

        /// The reader's location when it happened (`tml_...`); empty when none.
        public var locationID: String = ""

        /// The object as it stood after the change, a JSON object (its shape per
        /// type is in PROTOCOL.md).
        public var objectJson: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.id = try reader.read(ProtobufString.self, tag)
                case 2: self.type = try reader.read(ProtobufString.self, tag)
                case 3: self.createdUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 4: self.readerID = try reader.read(ProtobufString.self, tag)
                case 5: self.locationID = try reader.read(ProtobufString.self, tag)
                case 6: self.objectJson = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.id, field: 1)
            writer.writeSingular(ProtobufString.self, self.type, field: 2)
            writer.writeSingular(ProtobufInt64.self, self.createdUnixMs, field: 3)
            writer.writeSingular(ProtobufString.self, self.readerID, field: 4)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 5)
            writer.writeSingular(ProtobufString.self, self.objectJson, field: 6)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("id", self.id)
            d.string("type", self.type)
            d.value("createdUnixMs", self.createdUnixMs, isDefault: self.createdUnixMs == 0)
            d.string("readerID", self.readerID)
            d.string("locationID", self.locationID)
            d.string("objectJson", self.objectJson)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListEvents's request.
    public struct ListEventsRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListEventsRequest"

        /// Only these types; empty for every type.
        public var types: [String] = []

        /// Only events about this reader; empty for all.
        public var readerID: String = ""

        /// Only events at this location; empty for all.
        public var locationID: String = ""

        /// Only events created at or after this instant; 0 for no bound.
        public var createdFromUnixMs: Int64 = 0

        /// Only events created before this instant; 0 for no bound.
        public var createdBeforeUnixMs: Int64 = 0

        /// At most this many; 0 for the server default (100), at most 1000.
        public var limit: UInt32 = 0

        /// From a previous response's next_page_token, with the same filters;
        /// empty for the first page.
        public var pageToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeated(ProtobufString.self, tag, into: &self.types)
                case 2: self.readerID = try reader.read(ProtobufString.self, tag)
                case 3: self.locationID = try reader.read(ProtobufString.self, tag)
                case 4: self.createdFromUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 5: self.createdBeforeUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 6: self.limit = try reader.read(ProtobufUInt32.self, tag)
                case 7: self.pageToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeRepeated(ProtobufString.self, self.types, field: 1)
            writer.writeSingular(ProtobufString.self, self.readerID, field: 2)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 3)
            writer.writeSingular(ProtobufInt64.self, self.createdFromUnixMs, field: 4)
            writer.writeSingular(ProtobufInt64.self, self.createdBeforeUnixMs, field: 5)
            writer.writeSingular(ProtobufUInt32.self, self.limit, field: 6)
            writer.writeSingular(ProtobufString.self, self.pageToken, field: 7)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.strings("types", self.types)
            d.string("readerID", self.readerID)
            d.string("locationID", self.locationID)
            d.value("createdFromUnixMs", self.createdFromUnixMs, isDefault: self.createdFromUnixMs == 0)
            d.value("createdBeforeUnixMs", self.createdBeforeUnixMs, isDefault: self.createdBeforeUnixMs == 0)
            d.value("limit", self.limit, isDefault: self.limit == 0)
            d.string("pageToken", self.pageToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListEvents's response.
    public struct ListEventsResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListEventsResponse"

        /// The events, newest first.
        public var events: [ReaderGatewayV1.Event] = []

        /// Pass to the next request; empty on the last page.
        public var nextPageToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.events)
                case 2: self.nextPageToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.events { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufString.self, self.nextPageToken, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("events", self.events)
            d.string("nextPageToken", self.nextPageToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// GetEvent's request.
    public struct GetEventRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.GetEventRequest"

        /// The event (`evt_...`).
        public var eventID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.eventID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.eventID, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("eventID", self.eventID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// GetEvent's response.
    public struct GetEventResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.GetEventResponse"

        /// The event.
        public var event: ReaderGatewayV1.Event? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.event = try reader.readMessage(tag, as: ReaderGatewayV1.Event.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.event { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("event", self.event)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One row of the audit log (PROTOCOL.md section 21, "Audit log").
    public struct AuditEvent: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.AuditEvent"

        /// `aud_` and 32 hex digits.
        public var id: String = ""

        /// When it was written.
        public var createdUnixMs: Int64 = 0

        /// The FleetAdmin method (`ForceReleaseReader`), or `ConsoleSignIn`,
        /// `ConsoleSignOut`.
        public var action: String = ""

        /// The key that acted (`key_...`); empty for the account key of a console
        /// session opened by an older release.
        public var keyID: String = ""

        /// That key's name when it acted.
        public var keyName: String = ""

        /// The caller's address, `host:port`.
        public var sourceAddress: String = ""

        /// The console browser's User-Agent; empty off the console.
        public var userAgent: String = ""

        /// `ok`, or the reason of the refusal (`PERMISSION_DENIED`,
        /// `READER_NOT_FOUND`, ...).
        public var outcome: String = ""

        /// The reader the change concerns; empty when none.
        public var readerID: String = ""

        /// The location the change concerns; empty when none.
        public var locationID: String = ""

        /// What else it concerns: a key's id, an update's device type and version.
        public var targetID: String = ""

        /// What was done, or why it was refused.
        public var detail: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.id = try reader.read(ProtobufString.self, tag)
                case 2: self.createdUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 3: self.action = try reader.read(ProtobufString.self, tag)
                case 4: self.keyID = try reader.read(ProtobufString.self, tag)
                case 5: self.keyName = try reader.read(ProtobufString.self, tag)
                case 6: self.sourceAddress = try reader.read(ProtobufString.self, tag)
                case 7: self.userAgent = try reader.read(ProtobufString.self, tag)
                case 8: self.outcome = try reader.read(ProtobufString.self, tag)
                case 9: self.readerID = try reader.read(ProtobufString.self, tag)
                case 10: self.locationID = try reader.read(ProtobufString.self, tag)
                case 11: self.targetID = try reader.read(ProtobufString.self, tag)
                case 12: self.detail = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.id, field: 1)
            writer.writeSingular(ProtobufInt64.self, self.createdUnixMs, field: 2)
            writer.writeSingular(ProtobufString.self, self.action, field: 3)
            writer.writeSingular(ProtobufString.self, self.keyID, field: 4)
            writer.writeSingular(ProtobufString.self, self.keyName, field: 5)
            writer.writeSingular(ProtobufString.self, self.sourceAddress, field: 6)
            writer.writeSingular(ProtobufString.self, self.userAgent, field: 7)
            writer.writeSingular(ProtobufString.self, self.outcome, field: 8)
            writer.writeSingular(ProtobufString.self, self.readerID, field: 9)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 10)
            writer.writeSingular(ProtobufString.self, self.targetID, field: 11)
            writer.writeSingular(ProtobufString.self, self.detail, field: 12)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("id", self.id)
            d.value("createdUnixMs", self.createdUnixMs, isDefault: self.createdUnixMs == 0)
            d.string("action", self.action)
            d.string("keyID", self.keyID)
            d.string("keyName", self.keyName)
            d.string("sourceAddress", self.sourceAddress)
            d.string("userAgent", self.userAgent)
            d.string("outcome", self.outcome)
            d.string("readerID", self.readerID)
            d.string("locationID", self.locationID)
            d.string("targetID", self.targetID)
            d.string("detail", self.detail)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListAuditEvents's request.
    public struct ListAuditEventsRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListAuditEventsRequest"

        /// Only these actions; empty for every action.
        public var actions: [String] = []

        /// Only rows of this key; empty for all.
        public var keyID: String = ""

        /// Only rows about this reader; empty for all.
        public var readerID: String = ""

        /// Only rows at this location; empty for all.
        public var locationID: String = ""

        /// Only these outcomes.
        public var outcome: ReaderGatewayV1.AuditOutcomeFilter = ReaderGatewayV1.AuditOutcomeFilter(rawValue: 0)

        /// Only rows created at or after this instant; 0 for no bound.
        public var createdFromUnixMs: Int64 = 0

        /// Only rows created before this instant; 0 for no bound.
        public var createdBeforeUnixMs: Int64 = 0

        /// At most this many; 0 for the server default (100), at most 1000.
        public var limit: UInt32 = 0

        /// From a previous response's next_page_token, with the same filters;
        /// empty for the first page.
        public var pageToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeated(ProtobufString.self, tag, into: &self.actions)
                case 2: self.keyID = try reader.read(ProtobufString.self, tag)
                case 3: self.readerID = try reader.read(ProtobufString.self, tag)
                case 4: self.locationID = try reader.read(ProtobufString.self, tag)
                case 5: self.outcome = try reader.read(ProtobufEnumField<ReaderGatewayV1.AuditOutcomeFilter>.self, tag)
                case 6: self.createdFromUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 7: self.createdBeforeUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 8: self.limit = try reader.read(ProtobufUInt32.self, tag)
                case 9: self.pageToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeRepeated(ProtobufString.self, self.actions, field: 1)
            writer.writeSingular(ProtobufString.self, self.keyID, field: 2)
            writer.writeSingular(ProtobufString.self, self.readerID, field: 3)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 4)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.AuditOutcomeFilter>.self, self.outcome, field: 5)
            writer.writeSingular(ProtobufInt64.self, self.createdFromUnixMs, field: 6)
            writer.writeSingular(ProtobufInt64.self, self.createdBeforeUnixMs, field: 7)
            writer.writeSingular(ProtobufUInt32.self, self.limit, field: 8)
            writer.writeSingular(ProtobufString.self, self.pageToken, field: 9)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.strings("actions", self.actions)
            d.string("keyID", self.keyID)
            d.string("readerID", self.readerID)
            d.string("locationID", self.locationID)
            d.value("outcome", self.outcome, isDefault: self.outcome.rawValue == 0)
            d.value("createdFromUnixMs", self.createdFromUnixMs, isDefault: self.createdFromUnixMs == 0)
            d.value("createdBeforeUnixMs", self.createdBeforeUnixMs, isDefault: self.createdBeforeUnixMs == 0)
            d.value("limit", self.limit, isDefault: self.limit == 0)
            d.string("pageToken", self.pageToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListAuditEvents's response.
    public struct ListAuditEventsResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListAuditEventsResponse"

        /// The rows, newest first.
        public var events: [ReaderGatewayV1.AuditEvent] = []

        /// Pass to the next request; empty on the last page.
        public var nextPageToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.events)
                case 2: self.nextPageToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.events { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufString.self, self.nextPageToken, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("events", self.events)
            d.string("nextPageToken", self.nextPageToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A webhook endpoint (PROTOCOL.md section 23): never with its secret.
    public struct WebhookEndpoint: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.WebhookEndpoint"

        /// `we_` and 24 base-62 characters.
        public var id: String = ""

        /// An https:// URL.
        public var url: String = ""

        public var description: String = ""

        /// The event types it wants; `*` for all.
        public var enabledEvents: [String] = []

        public var enabled: Bool = false

        /// Why it is disabled: `requested` (an administrator), `failing` (its
        /// deliveries failed for the whole retry window); empty while enabled.
        public var disabledReason: String = ""

        public var createdUnixMs: Int64 = 0

        /// The first failed attempt since the last delivered one; 0 while healthy.
        public var failingSinceUnixMs: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.id = try reader.read(ProtobufString.self, tag)
                case 2: self.url = try reader.read(ProtobufString.self, tag)
                case 3: self.description = try reader.read(ProtobufString.self, tag)
                case 4: try reader.readRepeated(ProtobufString.self, tag, into: &self.enabledEvents)
                case 5: self.enabled = try reader.read(ProtobufBool.self, tag)
                case 6: self.disabledReason = try reader.read(ProtobufString.self, tag)
                case 7: self.createdUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 8: self.failingSinceUnixMs = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.id, field: 1)
            writer.writeSingular(ProtobufString.self, self.url, field: 2)
            writer.writeSingular(ProtobufString.self, self.description, field: 3)
            writer.writeRepeated(ProtobufString.self, self.enabledEvents, field: 4)
            writer.writeSingular(ProtobufBool.self, self.enabled, field: 5)
            writer.writeSingular(ProtobufString.self, self.disabledReason, field: 6)
            writer.writeSingular(ProtobufInt64.self, self.createdUnixMs, field: 7)
            writer.writeSingular(ProtobufInt64.self, self.failingSinceUnixMs, field: 8)
            writer.writeRaw(self.unknownFields)
        }
    }

    /// CreateWebhookEndpoint's request.
    public struct CreateWebhookEndpointRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CreateWebhookEndpointRequest"

        /// An https:// URL (no user-info, no fragment).
        public var url: String = ""

        public var description: String = ""

        /// The event types to deliver (PROTOCOL.md section 20); empty or `*` for all.
        public var enabledEvents: [String] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.url = try reader.read(ProtobufString.self, tag)
                case 2: self.description = try reader.read(ProtobufString.self, tag)
                case 3: try reader.readRepeated(ProtobufString.self, tag, into: &self.enabledEvents)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.url, field: 1)
            writer.writeSingular(ProtobufString.self, self.description, field: 2)
            writer.writeRepeated(ProtobufString.self, self.enabledEvents, field: 3)
            writer.writeRaw(self.unknownFields)
        }
    }

    /// CreateWebhookEndpoint's response.
    public struct CreateWebhookEndpointResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CreateWebhookEndpointResponse"

        public var endpoint: ReaderGatewayV1.WebhookEndpoint? = nil

        /// The signing secret (`whsec_...`): shown here once, never answered again.
        public var secret: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.endpoint = try reader.readMessage(tag, as: ReaderGatewayV1.WebhookEndpoint.self)
                case 2: self.secret = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.endpoint { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufString.self, self.secret, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("endpoint", self.endpoint)
            d.secret("secret", self.secret)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ListWebhookEndpoints's request.
    public struct ListWebhookEndpointsRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListWebhookEndpointsRequest"

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

    /// ListWebhookEndpoints's response.
    public struct ListWebhookEndpointsResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ListWebhookEndpointsResponse"

        /// Newest first.
        public var endpoints: [ReaderGatewayV1.WebhookEndpoint] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: try reader.readRepeatedMessage(tag, into: &self.endpoints)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for value in self.endpoints { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.messages("endpoints", self.endpoints)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// UpdateWebhookEndpoint's request: fields left empty stay as they are.
    public struct UpdateWebhookEndpointRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.UpdateWebhookEndpointRequest"

        public var endpointID: String = ""

        /// A new https:// URL; empty keeps it.
        public var url: String = ""

        /// A new description; empty keeps it (clear_description empties it).
        public var description: String = ""

        /// New event types (`*` for all); empty keeps them.
        public var enabledEvents: [String] = []

        public var enabledChange: ReaderGatewayV1.WebhookEndpointSwitch = ReaderGatewayV1.WebhookEndpointSwitch(rawValue: 0)

        /// Empties the description (with description empty; both set is refused).
        public var clearDescription: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.endpointID = try reader.read(ProtobufString.self, tag)
                case 2: self.url = try reader.read(ProtobufString.self, tag)
                case 3: self.description = try reader.read(ProtobufString.self, tag)
                case 4: try reader.readRepeated(ProtobufString.self, tag, into: &self.enabledEvents)
                case 5: self.enabledChange = try reader.read(ProtobufEnumField<ReaderGatewayV1.WebhookEndpointSwitch>.self, tag)
                case 6: self.clearDescription = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.endpointID, field: 1)
            writer.writeSingular(ProtobufString.self, self.url, field: 2)
            writer.writeSingular(ProtobufString.self, self.description, field: 3)
            writer.writeRepeated(ProtobufString.self, self.enabledEvents, field: 4)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.WebhookEndpointSwitch>.self, self.enabledChange, field: 5)
            writer.writeSingular(ProtobufBool.self, self.clearDescription, field: 6)
            writer.writeRaw(self.unknownFields)
        }
    }

    /// UpdateWebhookEndpoint's response.
    public struct UpdateWebhookEndpointResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.UpdateWebhookEndpointResponse"

        public var endpoint: ReaderGatewayV1.WebhookEndpoint? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.endpoint = try reader.readMessage(tag, as: ReaderGatewayV1.WebhookEndpoint.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.endpoint { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("endpoint", self.endpoint)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// DeleteWebhookEndpoint's request.
    public struct DeleteWebhookEndpointRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DeleteWebhookEndpointRequest"

        public var endpointID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.endpointID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.endpointID, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("endpointID", self.endpointID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// DeleteWebhookEndpoint's response.
    public struct DeleteWebhookEndpointResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DeleteWebhookEndpointResponse"

        /// The endpoint as it was.
        public var endpoint: ReaderGatewayV1.WebhookEndpoint? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.endpoint = try reader.readMessage(tag, as: ReaderGatewayV1.WebhookEndpoint.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.endpoint { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("endpoint", self.endpoint)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ResendEvent's request.
    public struct ResendEventRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ResendEventRequest"

        /// The event (`evt_...`).
        public var eventID: String = ""

        /// The endpoint (`we_...`).
        public var endpointID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.eventID = try reader.read(ProtobufString.self, tag)
                case 2: self.endpointID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.eventID, field: 1)
            writer.writeSingular(ProtobufString.self, self.endpointID, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("eventID", self.eventID)
            d.string("endpointID", self.endpointID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ResendEvent's response.
    public struct ResendEventResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ResendEventResponse"

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

    /// ResendEvents's request.
    public struct ResendEventsRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ResendEventsRequest"

        /// The endpoint (`we_...`).
        public var endpointID: String = ""

        /// Events created at or after this instant.
        public var createdFromUnixMs: Int64 = 0

        /// Events created before this instant; 0 for now.
        public var createdBeforeUnixMs: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.endpointID = try reader.read(ProtobufString.self, tag)
                case 2: self.createdFromUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 3: self.createdBeforeUnixMs = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.endpointID, field: 1)
            writer.writeSingular(ProtobufInt64.self, self.createdFromUnixMs, field: 2)
            writer.writeSingular(ProtobufInt64.self, self.createdBeforeUnixMs, field: 3)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("endpointID", self.endpointID)
            d.value("createdFromUnixMs", self.createdFromUnixMs, isDefault: self.createdFromUnixMs == 0)
            d.value("createdBeforeUnixMs", self.createdBeforeUnixMs, isDefault: self.createdBeforeUnixMs == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ResendEvents's response.
    public struct ResendEventsResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ResendEventsResponse"

        /// How many deliveries were queued.
        public var queued: UInt32 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.queued = try reader.read(ProtobufUInt32.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufUInt32.self, self.queued, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("queued", self.queued, isDefault: self.queued == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The fleet admin surface.
    public enum FleetAdmin {
        /// The fully qualified service name used in method paths.
        public static let serviceName = "readergateway.v1.FleetAdmin"

        /// Creates a location.
        public static let createLocation = ProtobufMethod<ReaderGatewayV1.CreateLocationRequest, ReaderGatewayV1.CreateLocationResponse>(
            service: serviceName, method: "CreateLocation", kind: .unary
        )

        /// Lists the account's locations.
        public static let listLocations = ProtobufMethod<ReaderGatewayV1.ListLocationsRequest, ReaderGatewayV1.ListLocationsResponse>(
            service: serviceName, method: "ListLocations", kind: .unary
        )

        /// Changes a location's display name or address.
        public static let updateLocation = ProtobufMethod<ReaderGatewayV1.UpdateLocationRequest, ReaderGatewayV1.UpdateLocationResponse>(
            service: serviceName, method: "UpdateLocation", kind: .unary
        )

        /// Registers the reader showing a registration code. The reader is told at
        /// once; the call answers when the reader's link is online, with its live
        /// status (online, the activity of its heartbeats). Errors:
        /// REGISTRATION_CODE_INVALID (also when the reader went away before it could
        /// be told; nothing is then registered), LOCATION_NOT_FOUND.
        public static let registerReader = ProtobufMethod<ReaderGatewayV1.RegisterReaderRequest, ReaderGatewayV1.RegisterReaderResponse>(
            service: serviceName, method: "RegisterReader", kind: .unary
        )

        /// Registers readers by serial number, in bulk. With a label prefix "Front",
        /// the readers are labelled "Front 1", "Front 2", ... in the order given.
        public static let registerReadersBySerial = ProtobufMethod<ReaderGatewayV1.RegisterReadersBySerialRequest, ReaderGatewayV1.RegisterReadersBySerialResponse>(
            service: serviceName, method: "RegisterReadersBySerial", kind: .unary
        )

        /// Unregisters a reader; its owner is disconnected (READER_UNREGISTERED).
        public static let deleteReader = ProtobufMethod<ReaderGatewayV1.DeleteReaderRequest, ReaderGatewayV1.DeleteReaderResponse>(
            service: serviceName, method: "DeleteReader", kind: .unary
        )

        /// Lists readers with their live status.
        public static let listReaders = ProtobufMethod<ReaderGatewayV1.ListReadersRequest, ReaderGatewayV1.ListReadersResponse>(
            service: serviceName, method: "ListReaders", kind: .unary
        )

        /// One reader with its live status.
        public static let getReader = ProtobufMethod<ReaderGatewayV1.GetReaderRequest, ReaderGatewayV1.GetReaderResponse>(
            service: serviceName, method: "GetReader", kind: .unary
        )

        /// Who owns each reader (of a location, or of the account) right now.
        public static let listReaderOwnership = ProtobufMethod<ReaderGatewayV1.ListReaderOwnershipRequest, ReaderGatewayV1.ListReaderOwnershipResponse>(
            service: serviceName, method: "ListReaderOwnership", kind: .unary
        )

        /// A reader's ownership changes, newest first. Each entry names its sessions
        /// (id, lane label, pos device id) as they were when it was recorded, also
        /// after they closed; a pos device id is empty only for entries recorded
        /// before the gateway kept it whose session was gone by then.
        public static let listOwnershipHistory = ProtobufMethod<ReaderGatewayV1.ListOwnershipHistoryRequest, ReaderGatewayV1.ListOwnershipHistoryResponse>(
            service: serviceName, method: "ListOwnershipHistory", kind: .unary
        )

        /// Takes a reader from its owner (the owner gets ADMIN_RELEASED).
        public static let forceReleaseReader = ProtobufMethod<ReaderGatewayV1.ForceReleaseReaderRequest, ReaderGatewayV1.ForceReleaseReaderResponse>(
            service: serviceName, method: "ForceReleaseReader", kind: .unary
        )

        /// Mints a short-lived connection token for a point-of-sale session.
        public static let createConnectionToken = ProtobufMethod<ReaderGatewayV1.CreateConnectionTokenRequest, ReaderGatewayV1.CreateConnectionTokenResponse>(
            service: serviceName, method: "CreateConnectionToken", kind: .unary
        )

        /// Lists live sessions.
        public static let listSessions = ProtobufMethod<ReaderGatewayV1.ListSessionsRequest, ReaderGatewayV1.ListSessionsResponse>(
            service: serviceName, method: "ListSessions", kind: .unary
        )

        /// Lists the account's software update catalog, by device type then
        /// version (newest first).
        public static let listSoftwareUpdates = ProtobufMethod<ReaderGatewayV1.ListSoftwareUpdatesRequest, ReaderGatewayV1.ListSoftwareUpdatesResponse>(
            service: serviceName, method: "ListSoftwareUpdates", kind: .unary
        )

        /// Adds an update to the catalog, or replaces the one of the same device
        /// type and version (its components, duration and required_at). Errors:
        /// INVALID_ARGUMENT (no device type, a version that is not dotted numbers,
        /// an unknown component).
        public static let addSoftwareUpdate = ProtobufMethod<ReaderGatewayV1.AddSoftwareUpdateRequest, ReaderGatewayV1.AddSoftwareUpdateResponse>(
            service: serviceName, method: "AddSoftwareUpdate", kind: .unary
        )

        /// Removes an update from the catalog. Errors: SOFTWARE_UPDATE_NOT_FOUND.
        public static let removeSoftwareUpdate = ProtobufMethod<ReaderGatewayV1.RemoveSoftwareUpdateRequest, ReaderGatewayV1.RemoveSoftwareUpdateResponse>(
            service: serviceName, method: "RemoveSoftwareUpdate", kind: .unary
        )

        /// The account's readers as they are (a snapshot, in pages), then each change
        /// as it happens, on any replica: takeovers, releases, online and offline,
        /// activity, registrations and deletions. The stream runs until the caller
        /// cancels it. A watcher that does not read its messages while the gateway's
        /// bounded buffer for the call fills is ended with RESOURCE_EXHAUSTED
        /// (CONSUMER_TOO_SLOW); it may watch again and gets a fresh snapshot.
        public static let watchFleet = ProtobufMethod<ReaderGatewayV1.WatchFleetRequest, ReaderGatewayV1.WatchFleetEvent>(
            service: serviceName, method: "WatchFleet", kind: .serverStreaming
        )

        /// Creates a secret key for the account with the permissions, locations and
        /// expiry given; the secret is answered once (only its hash is kept). A key
        /// may grant only what the calling key holds. Errors: INVALID_ARGUMENT (no
        /// name, an expiry in the past), LOCATION_NOT_FOUND.
        public static let createApiKey = ProtobufMethod<ReaderGatewayV1.CreateApiKeyRequest, ReaderGatewayV1.CreateApiKeyResponse>(
            service: serviceName, method: "CreateApiKey", kind: .unary
        )

        /// Lists the account's keys (never their secrets), revoked ones included.
        public static let listApiKeys = ProtobufMethod<ReaderGatewayV1.ListApiKeysRequest, ReaderGatewayV1.ListApiKeysResponse>(
            service: serviceName, method: "ListApiKeys", kind: .unary
        )

        /// Issues a new secret for a key. The old secret keeps working until the
        /// overlap ends (default 24 hours, at most 7 days), then is refused with
        /// SECRET_KEY_RETIRED saying it was rolled. Errors: API_KEY_NOT_FOUND.
        public static let rollApiKey = ProtobufMethod<ReaderGatewayV1.RollApiKeyRequest, ReaderGatewayV1.RollApiKeyResponse>(
            service: serviceName, method: "RollApiKey", kind: .unary
        )

        /// Revokes a key at once, on every replica: its secrets (also one still in a
        /// roll's overlap) and its console sessions are refused with
        /// SECRET_KEY_RETIRED. Errors: API_KEY_NOT_FOUND.
        public static let revokeApiKey = ProtobufMethod<ReaderGatewayV1.RevokeApiKeyRequest, ReaderGatewayV1.RevokeApiKeyResponse>(
            service: serviceName, method: "RevokeApiKey", kind: .unary
        )

        /// The account's event log, newest first (PROTOCOL.md section 20, "Events"):
        /// each change to the fleet, written with the change. Filters: types, reader,
        /// location, created range; all given must hold. Pages follow
        /// next_page_token, and events written meanwhile never shift a later page.
        /// Errors: INVALID_REQUEST (an unknown type, a page token this gateway did
        /// not issue, an empty or reversed created range).
        public static let listEvents = ProtobufMethod<ReaderGatewayV1.ListEventsRequest, ReaderGatewayV1.ListEventsResponse>(
            service: serviceName, method: "ListEvents", kind: .unary
        )

        /// One event of the account's log. Errors: EVENT_NOT_FOUND.
        public static let getEvent = ProtobufMethod<ReaderGatewayV1.GetEventRequest, ReaderGatewayV1.GetEventResponse>(
            service: serviceName, method: "GetEvent", kind: .unary
        )

        /// The account's audit log, newest first (PROTOCOL.md section 21, "Audit
        /// log"): each administrative change and each refusal for a missing
        /// permission, with the key that acted, its address and the outcome.
        /// Filters: actions, key, reader, location, outcome, created range; all
        /// given must hold. Pages follow next_page_token. Needs keys:read. Errors:
        /// INVALID_REQUEST (an unknown action, a page token this gateway did not
        /// issue, an empty or reversed created range).
        public static let listAuditEvents = ProtobufMethod<ReaderGatewayV1.ListAuditEventsRequest, ReaderGatewayV1.ListAuditEventsResponse>(
            service: serviceName, method: "ListAuditEvents", kind: .unary
        )

        /// Creates a webhook endpoint (PROTOCOL.md section 23, "Webhooks"): the
        /// account's events of the wanted types are POSTed to its https:// URL,
        /// signed with its secret, which this response carries and no other call
        /// ever answers again. Needs webhooks:write; audited. Errors:
        /// INVALID_REQUEST (not an https URL, an unknown event type).
        public static let createWebhookEndpoint = ProtobufMethod<ReaderGatewayV1.CreateWebhookEndpointRequest, ReaderGatewayV1.CreateWebhookEndpointResponse>(
            service: serviceName, method: "CreateWebhookEndpoint", kind: .unary
        )

        /// The account's webhook endpoints, newest first, without their secrets.
        /// Needs webhooks:read.
        public static let listWebhookEndpoints = ProtobufMethod<ReaderGatewayV1.ListWebhookEndpointsRequest, ReaderGatewayV1.ListWebhookEndpointsResponse>(
            service: serviceName, method: "ListWebhookEndpoints", kind: .unary
        )

        /// Changes an endpoint's URL, description, event types, or enables or
        /// disables it (enabling forgets its failing streak). Needs webhooks:write;
        /// audited. Errors: WEBHOOK_ENDPOINT_NOT_FOUND, INVALID_REQUEST.
        public static let updateWebhookEndpoint = ProtobufMethod<ReaderGatewayV1.UpdateWebhookEndpointRequest, ReaderGatewayV1.UpdateWebhookEndpointResponse>(
            service: serviceName, method: "UpdateWebhookEndpoint", kind: .unary
        )

        /// Deletes an endpoint and its pending deliveries. Needs webhooks:write;
        /// audited. Errors: WEBHOOK_ENDPOINT_NOT_FOUND.
        public static let deleteWebhookEndpoint = ProtobufMethod<ReaderGatewayV1.DeleteWebhookEndpointRequest, ReaderGatewayV1.DeleteWebhookEndpointResponse>(
            service: serviceName, method: "DeleteWebhookEndpoint", kind: .unary
        )

        /// Queues one event again for one endpoint (the same event id), whatever
        /// types the endpoint wants. Needs webhooks:write; audited. Errors:
        /// EVENT_NOT_FOUND, WEBHOOK_ENDPOINT_NOT_FOUND.
        public static let resendEvent = ProtobufMethod<ReaderGatewayV1.ResendEventRequest, ReaderGatewayV1.ResendEventResponse>(
            service: serviceName, method: "ResendEvent", kind: .unary
        )

        /// Queues again, for one endpoint, the account's events created in a range
        /// that the endpoint wants, oldest first, at most 10,000. Needs
        /// webhooks:write; audited. Errors: WEBHOOK_ENDPOINT_NOT_FOUND,
        /// INVALID_REQUEST (an empty or reversed range).
        public static let resendEvents = ProtobufMethod<ReaderGatewayV1.ResendEventsRequest, ReaderGatewayV1.ResendEventsResponse>(
            service: serviceName, method: "ResendEvents", kind: .unary
        )

        /// Every method of the service, in declaration order.
        public static let methods: [MethodDescriptor] = [
            createLocation.descriptor,
            listLocations.descriptor,
            updateLocation.descriptor,
            registerReader.descriptor,
            registerReadersBySerial.descriptor,
            deleteReader.descriptor,
            listReaders.descriptor,
            getReader.descriptor,
            listReaderOwnership.descriptor,
            listOwnershipHistory.descriptor,
            forceReleaseReader.descriptor,
            createConnectionToken.descriptor,
            listSessions.descriptor,
            listSoftwareUpdates.descriptor,
            addSoftwareUpdate.descriptor,
            removeSoftwareUpdate.descriptor,
            watchFleet.descriptor,
            createApiKey.descriptor,
            listApiKeys.descriptor,
            rollApiKey.descriptor,
            revokeApiKey.descriptor,
            listEvents.descriptor,
            getEvent.descriptor,
            listAuditEvents.descriptor,
            createWebhookEndpoint.descriptor,
            listWebhookEndpoints.descriptor,
            updateWebhookEndpoint.descriptor,
            deleteWebhookEndpoint.descriptor,
            resendEvent.descriptor,
            resendEvents.descriptor,
        ]
    }
}
