// Generated from readergateway/v1/sdk.proto by proto/tools/generate_swift.py. DO NOT EDIT.
// Regenerate with `make generate-proto`; `make test` fails when this file drifts.

// swiftlint:disable all

extension ReaderGatewayV1 {

    /// Why a session lost its reader (Stripe's DisconnectReason, plus takeover).
    public struct DisconnectReason: ProtobufEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Not known.
        public static let unspecified = DisconnectReason(rawValue: 0)
        /// The session asked for it (DisconnectReader, CloseSession).
        public static let requested = DisconnectReason(rawValue: 1)
        /// Another session connected to the reader (replace); see taken_by_*.
        public static let replaced = DisconnectReason(rawValue: 2)
        /// The reader went offline (network lost, powered off, heartbeats stopped).
        public static let readerLost = DisconnectReason(rawValue: 3)
        /// The reader rebooted (RebootReader or a software update).
        public static let rebootRequested = DisconnectReason(rawValue: 4)
        /// A fleet admin force-released the reader.
        public static let adminReleased = DisconnectReason(rawValue: 5)
        /// The session's lease ran out.
        public static let sessionExpired = DisconnectReason(rawValue: 6)
        /// The reader was unregistered or moved to another location.
        public static let readerUnregistered = DisconnectReason(rawValue: 7)
        /// PostgreSQL went back in time (an asynchronous standby was promoted without the old
        /// primary's last transactions): the connect that granted this ownership is gone from the
        /// store. The gateway released the reader at a new generation; connect again.
        public static let storeRolledBack = DisconnectReason(rawValue: 8)
        /// Every value this version knows, in declaration order.
        public static let knownValues: [DisconnectReason] = [.unspecified, .requested, .replaced, .readerLost, .rebootRequested, .adminReleased, .sessionExpired, .readerUnregistered, .storeRolledBack]
        /// The value's name in the .proto file, or nil for a value this version does not know.
        public var protoName: String? {
            switch rawValue {
            case 0: "DISCONNECT_REASON_UNSPECIFIED"
            case 1: "DISCONNECT_REASON_REQUESTED"
            case 2: "DISCONNECT_REASON_REPLACED"
            case 3: "DISCONNECT_REASON_READER_LOST"
            case 4: "DISCONNECT_REASON_REBOOT_REQUESTED"
            case 5: "DISCONNECT_REASON_ADMIN_RELEASED"
            case 6: "DISCONNECT_REASON_SESSION_EXPIRED"
            case 7: "DISCONNECT_REASON_READER_UNREGISTERED"
            case 8: "DISCONNECT_REASON_STORE_ROLLED_BACK"
            default: nil
            }
        }
    }

    /// OpenSession's request.
    public struct OpenSessionRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.OpenSessionRequest"

        /// A connection token from FleetAdmin.CreateConnectionToken.
        public var connectionToken: String = ""

        /// A stable id of the point-of-sale device (survives app restarts).
        public var posDeviceID: String = ""

        /// The lane's human label ("Lane 3"), shown to other lanes on takeover.
        public var laneLabel: String = ""

        /// The session_token of a session to resume; empty to open a new session.
        public var resumeToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.connectionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.posDeviceID = try reader.read(ProtobufString.self, tag)
                case 3: self.laneLabel = try reader.read(ProtobufString.self, tag)
                case 4: self.resumeToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.connectionToken, field: 1)
            writer.writeSingular(ProtobufString.self, self.posDeviceID, field: 2)
            writer.writeSingular(ProtobufString.self, self.laneLabel, field: 3)
            writer.writeSingular(ProtobufString.self, self.resumeToken, field: 4)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("connectionToken", self.connectionToken)
            d.string("posDeviceID", self.posDeviceID)
            d.string("laneLabel", self.laneLabel)
            d.secret("resumeToken", self.resumeToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// OpenSession's response.
    public struct OpenSessionResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.OpenSessionResponse"

        /// The session's public id (admins see it in ownership queries).
        public var sessionID: String = ""

        /// The secret that authorises every later call of this session and resumes
        /// it after a dropped connection. Keep it in memory only.
        public var sessionToken: String = ""

        /// How long the session lives without a call or heartbeat.
        public var leaseMs: Int64 = 0

        /// True when resume_token named a live session.
        public var resumed: Bool = false

        /// The reader the resumed session still owns; absent otherwise.
        public var connectedReader: ReaderGatewayV1.Reader? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionID = try reader.read(ProtobufString.self, tag)
                case 2: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 3: self.leaseMs = try reader.read(ProtobufInt64.self, tag)
                case 4: self.resumed = try reader.read(ProtobufBool.self, tag)
                case 5: self.connectedReader = try reader.readMessage(tag, as: ReaderGatewayV1.Reader.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionID, field: 1)
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 2)
            writer.writeSingular(ProtobufInt64.self, self.leaseMs, field: 3)
            writer.writeSingular(ProtobufBool.self, self.resumed, field: 4)
            if let value = self.connectedReader { writer.writeMessage(value, field: 5) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("sessionID", self.sessionID)
            d.secret("sessionToken", self.sessionToken)
            d.value("leaseMs", self.leaseMs, isDefault: self.leaseMs == 0)
            d.value("resumed", self.resumed, isDefault: !self.resumed)
            d.message("connectedReader", self.connectedReader)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// Heartbeat's request.
    public struct HeartbeatRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.HeartbeatRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// Heartbeat's response.
    public struct HeartbeatResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.HeartbeatResponse"

        /// The lease left after this heartbeat.
        public var leaseRemainingMs: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.leaseRemainingMs = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufInt64.self, self.leaseRemainingMs, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("leaseRemainingMs", self.leaseRemainingMs, isDefault: self.leaseRemainingMs == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CloseSession's request.
    public struct CloseSessionRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CloseSessionRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CloseSession's response.
    public struct CloseSessionResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CloseSessionResponse"

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

    /// DiscoverReaders's request (Stripe's InternetDiscoveryConfiguration).
    public struct DiscoverReadersRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DiscoverReadersRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Only readers at this location; empty for every location the connection
        /// token allows.
        public var locationID: String = ""

        /// How long to wait for the online answer before falling back to the last
        /// known list; 0 for the server default. Not used yet: the gateway answers
        /// from its store, and the call's deadline bounds the wait.
        public var timeoutMs: Int64 = 0

        /// Discover simulated readers instead of real ones.
        public var simulated: Bool = false

        /// Only the reader this filter names; absent for every reader of the
        /// location.
        public var filter: ReaderGatewayV1.DiscoveryFilter? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.locationID = try reader.read(ProtobufString.self, tag)
                case 3: self.timeoutMs = try reader.read(ProtobufInt64.self, tag)
                case 4: self.simulated = try reader.read(ProtobufBool.self, tag)
                case 5: self.filter = try reader.readMessage(tag, as: ReaderGatewayV1.DiscoveryFilter.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 2)
            writer.writeSingular(ProtobufInt64.self, self.timeoutMs, field: 3)
            writer.writeSingular(ProtobufBool.self, self.simulated, field: 4)
            if let value = self.filter { writer.writeMessage(value, field: 5) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.string("locationID", self.locationID)
            d.value("timeoutMs", self.timeoutMs, isDefault: self.timeoutMs == 0)
            d.value("simulated", self.simulated, isDefault: !self.simulated)
            d.message("filter", self.filter)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One reader to discover (Stripe's DiscoveryFilter): set exactly one field.
    public struct DiscoveryFilter: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DiscoveryFilter"

        /// The reader's id (`tmr_…`), as FleetAdmin and discoveries show it.
        public var readerID: String = ""

        /// The serial number printed on the reader (4 to 64 capital letters, digits
        /// or dashes).
        public var serialNumber: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.serialNumber = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            writer.writeSingular(ProtobufString.self, self.serialNumber, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.string("serialNumber", self.serialNumber)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// DiscoverReaders's response.
    public struct DiscoverReadersResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DiscoverReadersResponse"

        /// Names this discovery; pass it to ConnectReader with a reader from this
        /// answer. It stays valid until the session's next DiscoverReaders.
        public var discoveryID: String = ""

        /// The readers found, online and offline; empty when there are none.
        public var readers: [ReaderGatewayV1.Reader] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.discoveryID = try reader.read(ProtobufString.self, tag)
                case 2: try reader.readRepeatedMessage(tag, into: &self.readers)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.discoveryID, field: 1)
            for value in self.readers { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("discoveryID", self.discoveryID)
            d.messages("readers", self.readers)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CancelDiscovery's request.
    public struct CancelDiscoveryRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CancelDiscoveryRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Empty (the usual case) for whichever discovery of the session is waiting
        /// for its answer. A discovery id names the one to cancel: nothing happens
        /// unless that discovery is still waiting.
        public var discoveryID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.discoveryID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeSingular(ProtobufString.self, self.discoveryID, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.string("discoveryID", self.discoveryID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CancelDiscovery's response.
    public struct CancelDiscoveryResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CancelDiscoveryResponse"

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

    /// ConnectReader's request (Stripe's InternetConnectionConfiguration).
    public struct ConnectReaderRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ConnectReaderRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// The reader to connect to, from the latest discovery.
        public var readerID: String = ""

        /// The discovery the reader came from (empty: the session's latest). A
        /// reader from a discovery that a newer DiscoverReaders superseded is refused
        /// with STALE_DISCOVERY.
        public var discoveryID: String = ""

        /// Refuse (READER_BUSY) instead of taking over a reader that is
        /// mid-transaction for another session. An idle reader is taken over either
        /// way. Recommended: true first, then false after asking the user.
        public var failIfInUse: Bool = false

        /// Overrides the session's pos device id for this connection; usually empty.
        public var posDeviceID: String = ""

        /// Overrides the session's lane label for this connection; usually empty.
        public var laneLabel: String = ""

        /// Required for mobile and tap-to-pay readers (LOCATION_REQUIRED otherwise);
        /// ignored for smart readers, whose location is their registration.
        public var locationID: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.readerID = try reader.read(ProtobufString.self, tag)
                case 3: self.discoveryID = try reader.read(ProtobufString.self, tag)
                case 4: self.failIfInUse = try reader.read(ProtobufBool.self, tag)
                case 5: self.posDeviceID = try reader.read(ProtobufString.self, tag)
                case 6: self.laneLabel = try reader.read(ProtobufString.self, tag)
                case 7: self.locationID = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeSingular(ProtobufString.self, self.readerID, field: 2)
            writer.writeSingular(ProtobufString.self, self.discoveryID, field: 3)
            writer.writeSingular(ProtobufBool.self, self.failIfInUse, field: 4)
            writer.writeSingular(ProtobufString.self, self.posDeviceID, field: 5)
            writer.writeSingular(ProtobufString.self, self.laneLabel, field: 6)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 7)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.string("readerID", self.readerID)
            d.string("discoveryID", self.discoveryID)
            d.value("failIfInUse", self.failIfInUse, isDefault: !self.failIfInUse)
            d.string("posDeviceID", self.posDeviceID)
            d.string("laneLabel", self.laneLabel)
            d.string("locationID", self.locationID)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ConnectReader's response.
    public struct ConnectReaderResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ConnectReaderResponse"

        /// The connected reader.
        public var reader: ReaderGatewayV1.Reader? = nil

        /// The ownership generation this connection created; it increases by one at
        /// every change of owner of this reader.
        public var generation: UInt64 = 0

        /// True when the reader was taken from another session.
        public var replacedOtherSession: Bool = false

        /// Set when a required update failed and the connect was let through
        /// because the reader ran its location's latest version within the last 30
        /// days; the update is tried again at the next connect.
        public var requiredUpdateFailure: ReaderGatewayV1.Status? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.reader = try reader.readMessage(tag, as: ReaderGatewayV1.Reader.self)
                case 2: self.generation = try reader.read(ProtobufUInt64.self, tag)
                case 3: self.replacedOtherSession = try reader.read(ProtobufBool.self, tag)
                case 4: self.requiredUpdateFailure = try reader.readMessage(tag, as: ReaderGatewayV1.Status.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.reader { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufUInt64.self, self.generation, field: 2)
            writer.writeSingular(ProtobufBool.self, self.replacedOtherSession, field: 3)
            if let value = self.requiredUpdateFailure { writer.writeMessage(value, field: 4) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("reader", self.reader)
            d.value("generation", self.generation, isDefault: self.generation == 0)
            d.value("replacedOtherSession", self.replacedOtherSession, isDefault: !self.replacedOtherSession)
            d.message("requiredUpdateFailure", self.requiredUpdateFailure)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// EasyConnect's request (Stripe's InternetEasyConnectConfiguration: a
    /// discovery configuration and a connection configuration).
    public struct EasyConnectRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.EasyConnectRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// As DiscoverReadersRequest.location_id: the location to discover in;
        /// empty for every location the connection token allows.
        public var locationID: String = ""

        /// The reader to discover and connect (required).
        public var filter: ReaderGatewayV1.DiscoveryFilter? = nil

        /// As ConnectReaderRequest.fail_if_in_use.
        public var failIfInUse: Bool = false

        /// As ConnectReaderRequest.pos_device_id.
        public var posDeviceID: String = ""

        /// As ConnectReaderRequest.lane_label.
        public var laneLabel: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.locationID = try reader.read(ProtobufString.self, tag)
                case 3: self.filter = try reader.readMessage(tag, as: ReaderGatewayV1.DiscoveryFilter.self)
                case 4: self.failIfInUse = try reader.read(ProtobufBool.self, tag)
                case 5: self.posDeviceID = try reader.read(ProtobufString.self, tag)
                case 6: self.laneLabel = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 2)
            if let value = self.filter { writer.writeMessage(value, field: 3) }
            writer.writeSingular(ProtobufBool.self, self.failIfInUse, field: 4)
            writer.writeSingular(ProtobufString.self, self.posDeviceID, field: 5)
            writer.writeSingular(ProtobufString.self, self.laneLabel, field: 6)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.string("locationID", self.locationID)
            d.message("filter", self.filter)
            d.value("failIfInUse", self.failIfInUse, isDefault: !self.failIfInUse)
            d.string("posDeviceID", self.posDeviceID)
            d.string("laneLabel", self.laneLabel)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// EasyConnect's response.
    public struct EasyConnectResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.EasyConnectResponse"

        /// The discovery EasyConnect made (the session's latest), holding the
        /// connected reader alone.
        public var discoveryID: String = ""

        /// What ConnectReader answered.
        public var connection: ReaderGatewayV1.ConnectReaderResponse? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.discoveryID = try reader.read(ProtobufString.self, tag)
                case 2: self.connection = try reader.readMessage(tag, as: ReaderGatewayV1.ConnectReaderResponse.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.discoveryID, field: 1)
            if let value = self.connection { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("discoveryID", self.discoveryID)
            d.message("connection", self.connection)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// DisconnectReader's request.
    public struct DisconnectReaderRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DisconnectReaderRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// DisconnectReader's response.
    public struct DisconnectReaderResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DisconnectReaderResponse"

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

    /// CollectPaymentMethod's request.
    public struct CollectPaymentMethodRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CollectPaymentMethodRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// What to collect.
        public var params: ReaderGatewayV1.CollectPaymentMethodParams? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.params = try reader.readMessage(tag, as: ReaderGatewayV1.CollectPaymentMethodParams.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            if let value = self.params { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.message("params", self.params)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CollectPaymentMethod's response.
    public struct CollectPaymentMethodResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CollectPaymentMethodResponse"

        /// The payment intent, now with a payment method attached.
        public var paymentIntentID: String = ""

        /// The card the customer presented.
        public var paymentMethod: ReaderGatewayV1.PaymentMethod? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.paymentIntentID = try reader.read(ProtobufString.self, tag)
                case 2: self.paymentMethod = try reader.readMessage(tag, as: ReaderGatewayV1.PaymentMethod.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.paymentIntentID, field: 1)
            if let value = self.paymentMethod { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("paymentIntentID", self.paymentIntentID)
            d.message("paymentMethod", self.paymentMethod)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ConfirmPaymentIntent's request.
    public struct ConfirmPaymentIntentRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ConfirmPaymentIntentRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// What to confirm.
        public var params: ReaderGatewayV1.ConfirmPaymentIntentParams? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.params = try reader.readMessage(tag, as: ReaderGatewayV1.ConfirmPaymentIntentParams.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            if let value = self.params { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.message("params", self.params)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ConfirmPaymentIntent's response.
    public struct ConfirmPaymentIntentResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ConfirmPaymentIntentResponse"

        /// The confirmed payment intent.
        public var result: ReaderGatewayV1.PaymentIntentResult? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.result = try reader.readMessage(tag, as: ReaderGatewayV1.PaymentIntentResult.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.result { writer.writeMessage(value, field: 1) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("result", self.result)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CancelCollectPaymentMethod's request.
    public struct CancelCollectPaymentMethodRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CancelCollectPaymentMethodRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CancelCollectPaymentMethod's response.
    public struct CancelCollectPaymentMethodResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CancelCollectPaymentMethodResponse"

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

    /// SetReaderDisplay's request.
    public struct SetReaderDisplayRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.SetReaderDisplayRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// The cart to show.
        public var cart: ReaderGatewayV1.Cart? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.cart = try reader.readMessage(tag, as: ReaderGatewayV1.Cart.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            if let value = self.cart { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.message("cart", self.cart)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// SetReaderDisplay's response.
    public struct SetReaderDisplayResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.SetReaderDisplayResponse"

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

    /// ClearReaderDisplay's request.
    public struct ClearReaderDisplayRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ClearReaderDisplayRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ClearReaderDisplay's response.
    public struct ClearReaderDisplayResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ClearReaderDisplayResponse"

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

    /// RebootReader's request.
    public struct RebootReaderRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RebootReaderRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// RebootReader's response.
    public struct RebootReaderResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RebootReaderResponse"

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

    /// InstallAvailableUpdate's request.
    public struct InstallAvailableUpdateRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.InstallAvailableUpdateRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// InstallAvailableUpdate's response.
    public struct InstallAvailableUpdateResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.InstallAvailableUpdateResponse"

        /// The version installed; empty when there was no update to install.
        public var version: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.version = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.version, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("version", self.version)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CancelReaderSoftwareUpdate's request.
    public struct CancelReaderSoftwareUpdateRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CancelReaderSoftwareUpdateRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CancelReaderSoftwareUpdate's response.
    public struct CancelReaderSoftwareUpdateResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CancelReaderSoftwareUpdateResponse"

        /// True when an install was running and was told to stop.
        public var canceled: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.canceled = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufBool.self, self.canceled, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("canceled", self.canceled, isDefault: !self.canceled)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// SubscribeEvents's request.
    public struct SubscribeEventsRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.SubscribeEventsRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The phone a Tap to Pay reader runs on, as the device reports it.
    public struct TapToPayDevice: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.TapToPayDevice"

        /// The hardware model identifier (`iPhone15,2`).
        public var model: String = ""

        /// The operating system version (`17.4`, `16.7.2`).
        public var osVersion: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.model = try reader.read(ProtobufString.self, tag)
                case 2: self.osVersion = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.model, field: 1)
            writer.writeSingular(ProtobufString.self, self.osVersion, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("model", self.model)
            d.string("osVersion", self.osVersion)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// DiscoverTapToPayReader's request.
    public struct DiscoverTapToPayReaderRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DiscoverTapToPayReaderRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// The device this session runs on.
        public var device: ReaderGatewayV1.TapToPayDevice? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.device = try reader.readMessage(tag, as: ReaderGatewayV1.TapToPayDevice.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            if let value = self.device { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.message("device", self.device)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// DiscoverTapToPayReader's response.
    public struct DiscoverTapToPayReaderResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.DiscoverTapToPayReaderResponse"

        /// The device's reader: serial `TTP-<POS_DEVICE_ID>` (see
        /// DiscoverTapToPayReader), device type TAP_TO_PAY; id and location set
        /// once a connect registered it.
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

    /// ConnectTapToPayReader's request.
    public struct ConnectTapToPayReaderRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ConnectTapToPayReaderRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// The device this session runs on (checked as DiscoverTapToPayReader does).
        public var device: ReaderGatewayV1.TapToPayDevice? = nil

        /// Required: the location the reader is registered to at connect.
        public var locationID: String = ""

        /// The business name the customer sees on the tap screen; empty for the
        /// location's display name.
        public var merchantDisplayName: String = ""

        /// The connected account the payments are made on behalf of
        /// (destination charges); empty for none. When set, it is the account the
        /// 3-accounts rule counts and whose terms must be accepted.
        public var onBehalfOf: String = ""

        /// Whether the terms may be presented and accepted during this connect.
        public var tosAcceptancePermitted: Bool = false

        /// Reconnect by itself after an unexpected disconnect (default true in the
        /// client library).
        public var autoReconnectOnUnexpectedDisconnect: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.device = try reader.readMessage(tag, as: ReaderGatewayV1.TapToPayDevice.self)
                case 3: self.locationID = try reader.read(ProtobufString.self, tag)
                case 4: self.merchantDisplayName = try reader.read(ProtobufString.self, tag)
                case 5: self.onBehalfOf = try reader.read(ProtobufString.self, tag)
                case 6: self.tosAcceptancePermitted = try reader.read(ProtobufBool.self, tag)
                case 7: self.autoReconnectOnUnexpectedDisconnect = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            if let value = self.device { writer.writeMessage(value, field: 2) }
            writer.writeSingular(ProtobufString.self, self.locationID, field: 3)
            writer.writeSingular(ProtobufString.self, self.merchantDisplayName, field: 4)
            writer.writeSingular(ProtobufString.self, self.onBehalfOf, field: 5)
            writer.writeSingular(ProtobufBool.self, self.tosAcceptancePermitted, field: 6)
            writer.writeSingular(ProtobufBool.self, self.autoReconnectOnUnexpectedDisconnect, field: 7)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.message("device", self.device)
            d.string("locationID", self.locationID)
            d.string("merchantDisplayName", self.merchantDisplayName)
            d.string("onBehalfOf", self.onBehalfOf)
            d.value("tosAcceptancePermitted", self.tosAcceptancePermitted, isDefault: !self.tosAcceptancePermitted)
            d.value("autoReconnectOnUnexpectedDisconnect", self.autoReconnectOnUnexpectedDisconnect, isDefault: !self.autoReconnectOnUnexpectedDisconnect)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ConnectTapToPayReader's response.
    public struct ConnectTapToPayReaderResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ConnectTapToPayReaderResponse"

        /// The connected reader, registered to the location.
        public var reader: ReaderGatewayV1.Reader? = nil

        /// The name the tap screen shows.
        public var merchantDisplayName: String = ""

        /// True when this connect accepted the account's terms (its first ever).
        public var termsAcceptedNow: Bool = false

        /// The accounts the device served in the last 24 hours, this one included
        /// (at most 3).
        public var accountsInWindow: UInt32 = 0

        /// The credential of the phone's reader: the device attaches its reader's
        /// link with it (ReaderLink.Attach on the same connection), then connects
        /// the session to the reader with DiscoverReaders and ConnectReader, after
        /// which payments go through the ordinary commands. Each connect issues a
        /// new one and revokes the previous.
        public var readerCredential: String = ""

        /// Set when the device must be set up before its reader takes payments:
        /// its first connect, or its model or operating system version changed
        /// since its last setup. A configuration update (components `config`,
        /// required) that the device runs while the connect goes on, reporting its
        /// progress from 0 to 1 as a software update's (the connection status stays
        /// connecting); then it calls CompleteTapToPayDeviceSetup. Absent when the
        /// device is set up.
        public var deviceSetup: ReaderGatewayV1.ReaderSoftwareUpdate? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.reader = try reader.readMessage(tag, as: ReaderGatewayV1.Reader.self)
                case 2: self.merchantDisplayName = try reader.read(ProtobufString.self, tag)
                case 3: self.termsAcceptedNow = try reader.read(ProtobufBool.self, tag)
                case 4: self.accountsInWindow = try reader.read(ProtobufUInt32.self, tag)
                case 5: self.readerCredential = try reader.read(ProtobufString.self, tag)
                case 6: self.deviceSetup = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderSoftwareUpdate.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.reader { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufString.self, self.merchantDisplayName, field: 2)
            writer.writeSingular(ProtobufBool.self, self.termsAcceptedNow, field: 3)
            writer.writeSingular(ProtobufUInt32.self, self.accountsInWindow, field: 4)
            writer.writeSingular(ProtobufString.self, self.readerCredential, field: 5)
            if let value = self.deviceSetup { writer.writeMessage(value, field: 6) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("reader", self.reader)
            d.string("merchantDisplayName", self.merchantDisplayName)
            d.value("termsAcceptedNow", self.termsAcceptedNow, isDefault: !self.termsAcceptedNow)
            d.value("accountsInWindow", self.accountsInWindow, isDefault: self.accountsInWindow == 0)
            d.secret("readerCredential", self.readerCredential)
            d.message("deviceSetup", self.deviceSetup)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CompleteTapToPayDeviceSetup's request.
    public struct CompleteTapToPayDeviceSetupRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CompleteTapToPayDeviceSetupRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// The device that was set up (the model and operating system version
        /// its setup holds for).
        public var device: ReaderGatewayV1.TapToPayDevice? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.device = try reader.readMessage(tag, as: ReaderGatewayV1.TapToPayDevice.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            if let value = self.device { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.message("device", self.device)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// CompleteTapToPayDeviceSetup's response.
    public struct CompleteTapToPayDeviceSetupResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CompleteTapToPayDeviceSetupResponse"

        /// When the gateway recorded the setup.
        public var setUpUnixMs: Int64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.setUpUnixMs = try reader.read(ProtobufInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufInt64.self, self.setUpUnixMs, field: 1)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("setUpUnixMs", self.setUpUnixMs, isDefault: self.setUpUnixMs == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ConnectBluetoothReader's request.
    public struct ConnectBluetoothReaderRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ConnectBluetoothReaderRequest"

        /// From OpenSessionResponse.
        public var sessionToken: String = ""

        /// The serial number the reader advertised over Bluetooth.
        public var serialNumber: String = ""

        /// BBPOS_WISEPAD3, STRIPE_M2 or BBPOS_CHIPPER2X_BT.
        public var deviceType: ReaderGatewayV1.DeviceType = ReaderGatewayV1.DeviceType(rawValue: 0)

        /// Required: the location the reader is registered to at connect.
        public var locationID: String = ""

        /// The software version the reader reported over Bluetooth.
        public var softwareVersion: String = ""

        /// Reconnect by itself after an unexpected disconnect (default true in the
        /// client library); the reader's owner is kept meanwhile.
        public var autoReconnectOnUnexpectedDisconnect: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sessionToken = try reader.read(ProtobufString.self, tag)
                case 2: self.serialNumber = try reader.read(ProtobufString.self, tag)
                case 3: self.deviceType = try reader.read(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, tag)
                case 4: self.locationID = try reader.read(ProtobufString.self, tag)
                case 5: self.softwareVersion = try reader.read(ProtobufString.self, tag)
                case 6: self.autoReconnectOnUnexpectedDisconnect = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.sessionToken, field: 1)
            writer.writeSingular(ProtobufString.self, self.serialNumber, field: 2)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.DeviceType>.self, self.deviceType, field: 3)
            writer.writeSingular(ProtobufString.self, self.locationID, field: 4)
            writer.writeSingular(ProtobufString.self, self.softwareVersion, field: 5)
            writer.writeSingular(ProtobufBool.self, self.autoReconnectOnUnexpectedDisconnect, field: 6)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("sessionToken", self.sessionToken)
            d.string("serialNumber", self.serialNumber)
            d.value("deviceType", self.deviceType, isDefault: self.deviceType.rawValue == 0)
            d.string("locationID", self.locationID)
            d.string("softwareVersion", self.softwareVersion)
            d.value("autoReconnectOnUnexpectedDisconnect", self.autoReconnectOnUnexpectedDisconnect, isDefault: !self.autoReconnectOnUnexpectedDisconnect)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// ConnectBluetoothReader's response.
    public struct ConnectBluetoothReaderResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ConnectBluetoothReaderResponse"

        /// The reader, registered to the location.
        public var reader: ReaderGatewayV1.Reader? = nil

        /// The credential of the reader's link: the device attaches it
        /// (ReaderLink.Attach on the same connection), then connects the session to
        /// the reader with DiscoverReaders and ConnectReader. Each connect issues a
        /// new one and revokes the previous.
        public var readerCredential: String = ""

        /// True when the reader was bonded to another device before (that device's
        /// bond ended: it was neither connected to the reader nor holding it).
        public var rebondedFromAnotherDevice: Bool = false

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.reader = try reader.readMessage(tag, as: ReaderGatewayV1.Reader.self)
                case 2: self.readerCredential = try reader.read(ProtobufString.self, tag)
                case 3: self.rebondedFromAnotherDevice = try reader.read(ProtobufBool.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.reader { writer.writeMessage(value, field: 1) }
            writer.writeSingular(ProtobufString.self, self.readerCredential, field: 2)
            writer.writeSingular(ProtobufBool.self, self.rebondedFromAnotherDevice, field: 3)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("reader", self.reader)
            d.secret("readerCredential", self.readerCredential)
            d.value("rebondedFromAnotherDevice", self.rebondedFromAnotherDevice, isDefault: !self.rebondedFromAnotherDevice)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The session lost its reader.
    public struct ReaderDisconnected: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderDisconnected"

        /// The reader that was lost.
        public var readerID: String = ""

        /// Why.
        public var reason: ReaderGatewayV1.DisconnectReason = ReaderGatewayV1.DisconnectReason(rawValue: 0)

        /// For REPLACED: the lane label of the session that took the reader.
        public var takenByLaneLabel: String = ""

        /// For REPLACED: the pos device id of the session that took the reader.
        public var takenByPosDeviceID: String = ""

        /// For humans.
        public var message: String = ""

        /// The ownership generation that ended.
        public var generation: UInt64 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.reason = try reader.read(ProtobufEnumField<ReaderGatewayV1.DisconnectReason>.self, tag)
                case 3: self.takenByLaneLabel = try reader.read(ProtobufString.self, tag)
                case 4: self.takenByPosDeviceID = try reader.read(ProtobufString.self, tag)
                case 5: self.message = try reader.read(ProtobufString.self, tag)
                case 6: self.generation = try reader.read(ProtobufUInt64.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayV1.DisconnectReason>.self, self.reason, field: 2)
            writer.writeSingular(ProtobufString.self, self.takenByLaneLabel, field: 3)
            writer.writeSingular(ProtobufString.self, self.takenByPosDeviceID, field: 4)
            writer.writeSingular(ProtobufString.self, self.message, field: 5)
            writer.writeSingular(ProtobufUInt64.self, self.generation, field: 6)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.value("reason", self.reason, isDefault: self.reason.rawValue == 0)
            d.string("takenByLaneLabel", self.takenByLaneLabel)
            d.string("takenByPosDeviceID", self.takenByPosDeviceID)
            d.string("message", self.message)
            d.value("generation", self.generation, isDefault: self.generation == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The connected reader's status changed.
    public struct ReaderStatusChanged: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReaderStatusChanged"

        /// The reader, as it is now.
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

    /// The gateway started reconnecting the session to its reader (the reader
    /// dropped its link briefly).
    public struct ReconnectStarted: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReconnectStarted"

        /// The reader being reconnected.
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

    /// The reader came back within the reconnect window and is still this
    /// session's.
    public struct ReconnectSucceeded: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReconnectSucceeded"

        /// The reader.
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

    /// The reader did not come back; a ReaderDisconnected follows.
    public struct ReconnectFailed: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.ReconnectFailed"

        /// The reader.
        public var readerID: String = ""

        /// Why.
        public var status: ReaderGatewayV1.Status? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.status = try reader.readMessage(tag, as: ReaderGatewayV1.Status.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            if let value = self.status { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.message("status", self.status)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A software update is available for the connected reader (Stripe's
    /// didReportAvailableUpdate): sent when the session connects to a reader with
    /// an optional update, and again whenever the catalog changes while the
    /// reader is connected and not in a payment.
    public struct UpdateAvailable: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.UpdateAvailable"

        /// The reader.
        public var readerID: String = ""

        /// The update (its `required` says whether required_at has passed).
        public var update: ReaderGatewayV1.ReaderSoftwareUpdate? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.update = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderSoftwareUpdate.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            if let value = self.update { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.message("update", self.update)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// A software update started installing on the connected reader (Stripe's
    /// didStartInstallingUpdate); UpdateProgress events follow. Cancel it with
    /// CancelReaderSoftwareUpdate.
    public struct UpdateStarted: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.UpdateStarted"

        /// The reader.
        public var readerID: String = ""

        /// The update being installed.
        public var update: ReaderGatewayV1.ReaderSoftwareUpdate? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.update = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderSoftwareUpdate.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            if let value = self.update { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.message("update", self.update)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// Progress of a software update (during ConnectReader or InstallAvailableUpdate).
    public struct UpdateProgress: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.UpdateProgress"

        /// The reader.
        public var readerID: String = ""

        /// From 0.0 to 1.0.
        public var progress: Float = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.progress = try reader.read(ProtobufFloat.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            writer.writeSingular(ProtobufFloat.self, self.progress, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.value("progress", self.progress, isDefault: self.progress == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One event on a session's stream.
    public struct SessionEvent: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.SessionEvent"

        /// What happened.
        public enum Event: Equatable, Sendable {
            /// The session lost its reader.
            case disconnected(ReaderGatewayV1.ReaderDisconnected)
            /// The connected reader's status changed.
            case readerStatusChanged(ReaderGatewayV1.ReaderStatusChanged)
            /// A reconnect started.
            case reconnectStarted(ReaderGatewayV1.ReconnectStarted)
            /// A reconnect succeeded.
            case reconnectSucceeded(ReaderGatewayV1.ReconnectSucceeded)
            /// A reconnect failed.
            case reconnectFailed(ReaderGatewayV1.ReconnectFailed)
            /// Update progress.
            case updateProgress(ReaderGatewayV1.UpdateProgress)
            /// An update is available.
            case updateAvailable(ReaderGatewayV1.UpdateAvailable)
            /// An update started installing.
            case updateStarted(ReaderGatewayV1.UpdateStarted)
        }

        /// Increases by one per event of this session, so a resumed subscriber can
        /// tell whether it missed some.
        public var sequence: UInt64 = 0

        /// When the gateway emitted it.
        public var atUnixMs: Int64 = 0

        /// What happened.
        public var event: Event? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.sequence = try reader.read(ProtobufUInt64.self, tag)
                case 2: self.atUnixMs = try reader.read(ProtobufInt64.self, tag)
                case 3: self.event = .disconnected(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderDisconnected.self))
                case 4: self.event = .readerStatusChanged(try reader.readMessage(tag, as: ReaderGatewayV1.ReaderStatusChanged.self))
                case 5: self.event = .reconnectStarted(try reader.readMessage(tag, as: ReaderGatewayV1.ReconnectStarted.self))
                case 6: self.event = .reconnectSucceeded(try reader.readMessage(tag, as: ReaderGatewayV1.ReconnectSucceeded.self))
                case 7: self.event = .reconnectFailed(try reader.readMessage(tag, as: ReaderGatewayV1.ReconnectFailed.self))
                case 8: self.event = .updateProgress(try reader.readMessage(tag, as: ReaderGatewayV1.UpdateProgress.self))
                case 9: self.event = .updateAvailable(try reader.readMessage(tag, as: ReaderGatewayV1.UpdateAvailable.self))
                case 10: self.event = .updateStarted(try reader.readMessage(tag, as: ReaderGatewayV1.UpdateStarted.self))
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufUInt64.self, self.sequence, field: 1)
            writer.writeSingular(ProtobufInt64.self, self.atUnixMs, field: 2)
            switch self.event {
            case .disconnected(let value)?: writer.writeMessage(value, field: 3)
            case .readerStatusChanged(let value)?: writer.writeMessage(value, field: 4)
            case .reconnectStarted(let value)?: writer.writeMessage(value, field: 5)
            case .reconnectSucceeded(let value)?: writer.writeMessage(value, field: 6)
            case .reconnectFailed(let value)?: writer.writeMessage(value, field: 7)
            case .updateProgress(let value)?: writer.writeMessage(value, field: 8)
            case .updateAvailable(let value)?: writer.writeMessage(value, field: 9)
            case .updateStarted(let value)?: writer.writeMessage(value, field: 10)
            case nil: break
            }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("sequence", self.sequence, isDefault: self.sequence == 0)
            d.value("atUnixMs", self.atUnixMs, isDefault: self.atUnixMs == 0)
            switch self.event {
            case .disconnected(let value)?: d.message("disconnected", value)
            case .readerStatusChanged(let value)?: d.message("readerStatusChanged", value)
            case .reconnectStarted(let value)?: d.message("reconnectStarted", value)
            case .reconnectSucceeded(let value)?: d.message("reconnectSucceeded", value)
            case .reconnectFailed(let value)?: d.message("reconnectFailed", value)
            case .updateProgress(let value)?: d.message("updateProgress", value)
            case .updateAvailable(let value)?: d.message("updateAvailable", value)
            case .updateStarted(let value)?: d.message("updateStarted", value)
            case nil: break
            }
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The point-of-sale session surface.
    public enum Sdk {
        /// The fully qualified service name used in method paths.
        public static let serviceName = "readergateway.v1.Sdk"

        /// Opens a session, or resumes one after a dropped connection (set
        /// resume_token). A resumed session keeps its reader if its lease has not run
        /// out. Errors: CONNECTION_TOKEN_INVALID, CONNECTION_TOKEN_EXPIRED,
        /// SESSION_EXPIRED (resume too late).
        public static let openSession = ProtobufMethod<ReaderGatewayV1.OpenSessionRequest, ReaderGatewayV1.OpenSessionResponse>(
            service: serviceName, method: "OpenSession", kind: .unary
        )

        /// Keeps the session's lease alive; lanes call it every few seconds when idle.
        public static let heartbeat = ProtobufMethod<ReaderGatewayV1.HeartbeatRequest, ReaderGatewayV1.HeartbeatResponse>(
            service: serviceName, method: "Heartbeat", kind: .unary
        )

        /// Closes the session and releases its reader.
        public static let closeSession = ProtobufMethod<ReaderGatewayV1.CloseSessionRequest, ReaderGatewayV1.CloseSessionResponse>(
            service: serviceName, method: "CloseSession", kind: .unary
        )

        /// Lists the readers registered at a location, online or not: one answer per
        /// call, empty when there are none. The discovery is complete when it
        /// answers (as Stripe's SDKs complete an internet-reader discovery since iOS
        /// SDK 4.0.0); there is nothing to cancel afterwards. A new DiscoverReaders
        /// supersedes the session's previous discovery: one still waiting for its
        /// answer ends with DISCOVERY_CANCELED, and readers from any earlier
        /// discovery are refused by ConnectReader with STALE_DISCOVERY. Errors:
        /// RATE_LIMITED (a few back to back, then about one per second per session;
        /// a refused discovery changes nothing), DISCOVERY_CANCELED, PERMISSION_DENIED,
        /// LOCATION_NOT_FOUND, STORE_UNAVAILABLE. With a filter (one reader id or
        /// serial number, Stripe's DiscoveryFilter) the answer holds that reader
        /// alone, or nothing when no reader of the session's account and location
        /// matches (as an unfiltered discovery of an empty location answers: an
        /// empty list, never an error, and a reader of another account or location
        /// reads exactly as an unknown one); the rest of the location is not read.
        /// A filter naming both, or a malformed one, fails with INVALID_REQUEST
        /// (status INVALID_ARGUMENT).
        public static let discoverReaders = ProtobufMethod<ReaderGatewayV1.DiscoverReadersRequest, ReaderGatewayV1.DiscoverReadersResponse>(
            service: serviceName, method: "DiscoverReaders", kind: .unary
        )

        /// Cancels the session's discovery that is still waiting for its answer (the
        /// store has not answered yet); that DiscoverReaders call ends at once with
        /// DISCOVERY_CANCELED (Stripe's Cancelable.cancel()). Succeeds as well when
        /// nothing is waiting: a discovery that answered stays usable for
        /// ConnectReader.
        public static let cancelDiscovery = ProtobufMethod<ReaderGatewayV1.CancelDiscoveryRequest, ReaderGatewayV1.CancelDiscoveryResponse>(
            service: serviceName, method: "CancelDiscovery", kind: .unary
        )

        /// Connects the session to a reader from its latest discovery, which must
        /// have answered. When the account's catalog holds a required update for the
        /// reader (required_at passed), it installs before the call answers: an
        /// UpdateStarted event, then UpdateProgress events from 0 to 1, while the
        /// connect is still running (the lane shows `connecting`);
        /// CancelReaderSoftwareUpdate stops it and the connect fails with
        /// COMMAND_CANCELED. A battery at or below 50 % fails the connect with
        /// READER_SOFTWARE_UPDATE_FAILED_BATTERY_LOW. A failed install lets the
        /// connect succeed (required_update_failure set) only if the reader ran its
        /// location's latest version within the last 30 days, else the connect
        /// fails with READER_SOFTWARE_UPDATE_FAILED; either way the next connect
        /// tries again. Errors: READER_BUSY, READER_OFFLINE, STALE_DISCOVERY (the
        /// reader's discovery was superseded by a newer one, or the latest has not
        /// answered), READER_NOT_FOUND, ALREADY_CONNECTED_TO_READER,
        /// LOCATION_REQUIRED.
        public static let connectReader = ProtobufMethod<ReaderGatewayV1.ConnectReaderRequest, ReaderGatewayV1.ConnectReaderResponse>(
            service: serviceName, method: "ConnectReader", kind: .unary
        )

        /// Discovers one reader by its filter and connects to it in one call
        /// (Stripe's easyConnect, iOS SDK 5.1): a filtered DiscoverReaders, then
        /// ConnectReader of the reader it answered with the request's
        /// fail_if_in_use, under the same rules (an idle reader is taken over
        /// either way; a reader mid-transaction for another session is refused
        /// with READER_BUSY when fail_if_in_use is set, taken over otherwise). The
        /// discovery it makes is the session's latest, as with DiscoverReaders.
        /// The filter is required (INVALID_REQUEST without one). When no reader of
        /// the session's account and location matches, it fails with
        /// READER_NOT_FOUND (status NOT_FOUND) and connects nothing. Otherwise the
        /// errors of DiscoverReaders and ConnectReader.
        public static let easyConnect = ProtobufMethod<ReaderGatewayV1.EasyConnectRequest, ReaderGatewayV1.EasyConnectResponse>(
            service: serviceName, method: "EasyConnect", kind: .unary
        )

        /// Releases the session's reader.
        public static let disconnectReader = ProtobufMethod<ReaderGatewayV1.DisconnectReaderRequest, ReaderGatewayV1.DisconnectReaderResponse>(
            service: serviceName, method: "DisconnectReader", kind: .unary
        )

        /// Waits for the customer to present a card. The reader is "in use" until
        /// this call ends.
        public static let collectPaymentMethod = ProtobufMethod<ReaderGatewayV1.CollectPaymentMethodRequest, ReaderGatewayV1.CollectPaymentMethodResponse>(
            service: serviceName, method: "CollectPaymentMethod", kind: .unary
        )

        /// Confirms the payment intent with the collected payment method. The reader
        /// is "in use" until this call ends.
        public static let confirmPaymentIntent = ProtobufMethod<ReaderGatewayV1.ConfirmPaymentIntentRequest, ReaderGatewayV1.ConfirmPaymentIntentResponse>(
            service: serviceName, method: "ConfirmPaymentIntent", kind: .unary
        )

        /// Cancels a running CollectPaymentMethod; that call ends with COMMAND_CANCELED.
        public static let cancelCollectPaymentMethod = ProtobufMethod<ReaderGatewayV1.CancelCollectPaymentMethodRequest, ReaderGatewayV1.CancelCollectPaymentMethodResponse>(
            service: serviceName, method: "CancelCollectPaymentMethod", kind: .unary
        )

        /// Shows a cart on the reader.
        public static let setReaderDisplay = ProtobufMethod<ReaderGatewayV1.SetReaderDisplayRequest, ReaderGatewayV1.SetReaderDisplayResponse>(
            service: serviceName, method: "SetReaderDisplay", kind: .unary
        )

        /// Returns the reader to its splash screen.
        public static let clearReaderDisplay = ProtobufMethod<ReaderGatewayV1.ClearReaderDisplayRequest, ReaderGatewayV1.ClearReaderDisplayResponse>(
            service: serviceName, method: "ClearReaderDisplay", kind: .unary
        )

        /// Reboots the reader; it disconnects and re-attaches by itself.
        public static let rebootReader = ProtobufMethod<ReaderGatewayV1.RebootReaderRequest, ReaderGatewayV1.RebootReaderResponse>(
            service: serviceName, method: "RebootReader", kind: .unary
        )

        /// Installs the update the connected reader has available (its
        /// available_update, from the account's catalog); progress arrives as
        /// UpdateProgress events and the call answers when the install has finished.
        /// Refused with READER_BUSY while a payment runs. Errors:
        /// READER_SOFTWARE_UPDATE_FAILED, READER_SOFTWARE_UPDATE_FAILED_BATTERY_LOW,
        /// READER_SOFTWARE_UPDATE_FAILED_INTERRUPTED, COMMAND_CANCELED (after
        /// CancelReaderSoftwareUpdate).
        public static let installAvailableUpdate = ProtobufMethod<ReaderGatewayV1.InstallAvailableUpdateRequest, ReaderGatewayV1.InstallAvailableUpdateResponse>(
            service: serviceName, method: "InstallAvailableUpdate", kind: .unary
        )

        /// Cancels the session's running software update: a required update during
        /// ConnectReader (that connect then fails with COMMAND_CANCELED and the
        /// reader is released) or an InstallAvailableUpdate (it ends with
        /// COMMAND_CANCELED). Succeeds as well when nothing is installing.
        public static let cancelReaderSoftwareUpdate = ProtobufMethod<ReaderGatewayV1.CancelReaderSoftwareUpdateRequest, ReaderGatewayV1.CancelReaderSoftwareUpdateResponse>(
            service: serviceName, method: "CancelReaderSoftwareUpdate", kind: .unary
        )

        /// Tap to Pay: whether this point-of-sale device can be its own reader
        /// (Stripe's TapToPayDiscoveryConfiguration). Answers the device's reader
        /// (device type TAP_TO_PAY, serial `TTP-<POS_DEVICE_ID>`: the session's
        /// pos_device_id in capitals, or `TTP-` and a hash of it when it is longer
        /// than 60 characters or not made of letters, digits and dashes), or fails with
        /// TAP_TO_PAY_UNSUPPORTED_DEVICE when the model or operating system version
        /// is not supported. It changes nothing: ConnectTapToPayReader checks the
        /// device again.
        public static let discoverTapToPayReader = ProtobufMethod<ReaderGatewayV1.DiscoverTapToPayReaderRequest, ReaderGatewayV1.DiscoverTapToPayReaderResponse>(
            service: serviceName, method: "DiscoverTapToPayReader", kind: .unary
        )

        /// Tap to Pay: prepares the device's reader for this session (Stripe's
        /// TapToPayConnectionConfiguration). Registers the reader to location_id
        /// (required), accepts the account's terms once (on any device), admits the
        /// account on the device (at most 3 unique accounts per device in a rolling
        /// 24 hours, decided in PostgreSQL so it holds across replicas) and issues
        /// the reader's credential. The device then attaches the reader's link on
        /// its own connection and connects to it as to any reader (DiscoverReaders,
        /// ConnectReader); only sessions of the same pos_device_id discover it.
        /// Errors: LOCATION_REQUIRED, LOCATION_NOT_FOUND,
        /// TAP_TO_PAY_UNSUPPORTED_DEVICE, TAP_TO_PAY_READER_MERCHANT_BLOCKED,
        /// TAP_TO_PAY_READER_TOS_ACCEPTANCE_CANCELED, ALREADY_CONNECTED_TO_READER,
        /// STORE_UNAVAILABLE.
        public static let connectTapToPayReader = ProtobufMethod<ReaderGatewayV1.ConnectTapToPayReaderRequest, ReaderGatewayV1.ConnectTapToPayReaderResponse>(
            service: serviceName, method: "ConnectTapToPayReader", kind: .unary
        )

        /// Tap to Pay: the device finished the setup that ConnectTapToPayReader
        /// asked for (ConnectTapToPayReaderResponse.device_setup). The gateway
        /// records the device as set up for the model and operating system version
        /// given (in PostgreSQL, keyed by pos_device_id, so every replica knows);
        /// the next connects on the device need no setup until either changes.
        /// Errors: TAP_TO_PAY_UNSUPPORTED_DEVICE, STORE_UNAVAILABLE.
        public static let completeTapToPayDeviceSetup = ProtobufMethod<ReaderGatewayV1.CompleteTapToPayDeviceSetupRequest, ReaderGatewayV1.CompleteTapToPayDeviceSetupResponse>(
            service: serviceName, method: "CompleteTapToPayDeviceSetup", kind: .unary
        )

        /// Bluetooth readers: prepares a reader the device found over Bluetooth and
        /// paired with for this session (Stripe's BluetoothConnectionConfiguration).
        /// Nothing is registered in advance: the gateway registers the reader (by
        /// serial number and device type) to location_id (required), bonds it to
        /// this session's pos_device_id and issues the reader's credential. The
        /// device then attaches the reader's link on its own connection (carrying
        /// what the reader says over Bluetooth) and connects to it as to any reader
        /// (DiscoverReaders, ConnectReader); only sessions of the bonded device
        /// discover it. Errors: LOCATION_REQUIRED, LOCATION_NOT_FOUND,
        /// BLUETOOTH_ALREADY_PAIRED_WITH_ANOTHER_DEVICE (another device holds the
        /// reader), READER_ALREADY_REGISTERED (the serial belongs to a reader that is
        /// not a Bluetooth reader), ALREADY_CONNECTED_TO_READER, INVALID_ARGUMENT (no
        /// serial, or a device type that is not a Bluetooth reader's),
        /// STORE_UNAVAILABLE.
        public static let connectBluetoothReader = ProtobufMethod<ReaderGatewayV1.ConnectBluetoothReaderRequest, ReaderGatewayV1.ConnectBluetoothReaderResponse>(
            service: serviceName, method: "ConnectBluetoothReader", kind: .unary
        )

        /// The session's event stream: disconnects (with the reason, and for a
        /// takeover the lane that took the reader), reader status, reconnects and
        /// update progress. The stream ends when the session closes.
        public static let subscribeEvents = ProtobufMethod<ReaderGatewayV1.SubscribeEventsRequest, ReaderGatewayV1.SessionEvent>(
            service: serviceName, method: "SubscribeEvents", kind: .serverStreaming
        )

        /// Every method of the service, in declaration order.
        public static let methods: [MethodDescriptor] = [
            openSession.descriptor,
            heartbeat.descriptor,
            closeSession.descriptor,
            discoverReaders.descriptor,
            cancelDiscovery.descriptor,
            connectReader.descriptor,
            easyConnect.descriptor,
            disconnectReader.descriptor,
            collectPaymentMethod.descriptor,
            confirmPaymentIntent.descriptor,
            cancelCollectPaymentMethod.descriptor,
            setReaderDisplay.descriptor,
            clearReaderDisplay.descriptor,
            rebootReader.descriptor,
            installAvailableUpdate.descriptor,
            cancelReaderSoftwareUpdate.descriptor,
            discoverTapToPayReader.descriptor,
            connectTapToPayReader.descriptor,
            completeTapToPayDeviceSetup.descriptor,
            connectBluetoothReader.descriptor,
            subscribeEvents.descriptor,
        ]
    }
}
