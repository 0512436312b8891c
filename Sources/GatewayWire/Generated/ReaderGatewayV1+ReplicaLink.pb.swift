// Generated from readergateway/v1/replica_link.proto by proto/tools/generate_swift.py. DO NOT EDIT.
// Regenerate with `make generate-proto`; `make test` fails when this file drifts.

// swiftlint:disable all

extension ReaderGatewayV1 {

    /// One command for a reader homed on the called replica.
    public struct RelayCommandRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RelayCommandRequest"

        /// The reader.
        public var readerID: String = ""

        /// The epoch of the link the caller believes is live.
        public var linkEpoch: UInt64 = 0

        /// The session sending the command (fenced by `generation`).
        public var sessionID: String = ""

        /// The session's ownership generation.
        public var generation: UInt64 = 0

        /// The command (its command_id is assigned by the called replica).
        public var command: ReaderGatewayV1.ReaderCommand? = nil

        /// The command is a reboot: the coming link loss is reported as a reboot.
        public var reboot: Bool = false

        /// The node id of the calling replica, for logs.
        public var fromNode: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.readerID = try reader.read(ProtobufString.self, tag)
                case 2: self.linkEpoch = try reader.read(ProtobufUInt64.self, tag)
                case 3: self.sessionID = try reader.read(ProtobufString.self, tag)
                case 4: self.generation = try reader.read(ProtobufUInt64.self, tag)
                case 5: self.command = try reader.readMessage(tag, as: ReaderGatewayV1.ReaderCommand.self)
                case 6: self.reboot = try reader.read(ProtobufBool.self, tag)
                case 7: self.fromNode = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.readerID, field: 1)
            writer.writeSingular(ProtobufUInt64.self, self.linkEpoch, field: 2)
            writer.writeSingular(ProtobufString.self, self.sessionID, field: 3)
            writer.writeSingular(ProtobufUInt64.self, self.generation, field: 4)
            if let value = self.command { writer.writeMessage(value, field: 5) }
            writer.writeSingular(ProtobufBool.self, self.reboot, field: 6)
            writer.writeSingular(ProtobufString.self, self.fromNode, field: 7)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("readerID", self.readerID)
            d.value("linkEpoch", self.linkEpoch, isDefault: self.linkEpoch == 0)
            d.string("sessionID", self.sessionID)
            d.value("generation", self.generation, isDefault: self.generation == 0)
            d.message("command", self.command)
            d.value("reboot", self.reboot, isDefault: !self.reboot)
            d.string("fromNode", self.fromNode)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The reader's answer.
    public struct RelayCommandResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.RelayCommandResponse"

        /// As the reader sent it (command_id is the called replica's).
        public var result: ReaderGatewayV1.CommandResult? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.result = try reader.readMessage(tag, as: ReaderGatewayV1.CommandResult.self)
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

    /// An admin registered the code a reader on the called replica shows.
    public struct CompleteRegistrationRequest: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CompleteRegistrationRequest"

        /// The canonical registration code (8 characters, no dash).
        public var registrationCode: String = ""

        /// The reader created for it.
        public var readerID: String = ""

        /// The credential the reader uses from now on (only its hash is stored).
        public var readerCredential: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.registrationCode = try reader.read(ProtobufString.self, tag)
                case 2: self.readerID = try reader.read(ProtobufString.self, tag)
                case 3: self.readerCredential = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.registrationCode, field: 1)
            writer.writeSingular(ProtobufString.self, self.readerID, field: 2)
            writer.writeSingular(ProtobufString.self, self.readerCredential, field: 3)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.secret("registrationCode", self.registrationCode)
            d.string("readerID", self.readerID)
            d.secret("readerCredential", self.readerCredential)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The reader was told (false: no reader shows that code here any more).
    public struct CompleteRegistrationResponse: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CompleteRegistrationResponse"

        /// Whether a link on the called replica showed the code, was told, and went
        /// online.
        public var delivered: Bool = false

        /// The reader as it is once its link went online on the called replica (live
        /// network status and activity); the answer to FleetAdmin.RegisterReader.
        /// Absent from replicas that predate it: the caller then reads the row.
        public var reader: ReaderGatewayV1.Reader? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.delivered = try reader.read(ProtobufBool.self, tag)
                case 2: self.reader = try reader.readMessage(tag, as: ReaderGatewayV1.Reader.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufBool.self, self.delivered, field: 1)
            if let value = self.reader { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("delivered", self.delivered, isDefault: !self.delivered)
            d.message("reader", self.reader)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// Replica-to-replica calls (internal port only).
    public enum ReplicaLink {
        /// The fully qualified service name used in method paths.
        public static let serviceName = "readergateway.v1.ReplicaLink"

        /// Relays one command to a reader whose link lives on the called replica and
        /// returns the reader's answer. Fails with READER_LINK_MOVED (UNAVAILABLE)
        /// when the called replica does not hold the link of `link_epoch`: the caller
        /// re-reads the reader's home from PostgreSQL and tries there.
        public static let relayCommand = ProtobufMethod<ReaderGatewayV1.RelayCommandRequest, ReaderGatewayV1.RelayCommandResponse>(
            service: serviceName, method: "RelayCommand", kind: .unary
        )

        /// Hands an admin's registration of a pending registration code to the
        /// replica where the reader showing that code is attached.
        public static let completeRegistration = ProtobufMethod<ReaderGatewayV1.CompleteRegistrationRequest, ReaderGatewayV1.CompleteRegistrationResponse>(
            service: serviceName, method: "CompleteRegistration", kind: .unary
        )

        /// Every method of the service, in declaration order.
        public static let methods: [MethodDescriptor] = [
            relayCommand.descriptor,
            completeRegistration.descriptor,
        ]
    }
}
