// Generated from readergateway/v1/frames.proto by proto/tools/generate_swift.py. DO NOT EDIT.
// Regenerate with `make generate-proto`; `make test` fails when this file drifts.

// swiftlint:disable all

extension ReaderGatewayV1 {

    /// The limits a peer announces in its first frame. A field left at 0 means the
    /// protocol default (PROTOCOL.md, "Limits").
    public struct Settings: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.Settings"

        /// The protocol version the peer speaks; 1.
        public var protocolVersion: UInt32 = 0

        /// Largest frame payload the sender accepts, in bytes.
        public var maxFrameSize: UInt32 = 0

        /// How many calls may be open at once towards the sender.
        public var maxConcurrentStreams: UInt32 = 0

        /// The sender's receive window for each new stream, in payload bytes.
        public var initialStreamWindow: UInt32 = 0

        /// The sender's receive window for the whole connection, in payload bytes.
        public var initialConnectionWindow: UInt32 = 0

        /// Largest CALL_START payload the sender accepts, in bytes.
        public var maxHeaderSize: UInt32 = 0

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.protocolVersion = try reader.read(ProtobufUInt32.self, tag)
                case 2: self.maxFrameSize = try reader.read(ProtobufUInt32.self, tag)
                case 3: self.maxConcurrentStreams = try reader.read(ProtobufUInt32.self, tag)
                case 4: self.initialStreamWindow = try reader.read(ProtobufUInt32.self, tag)
                case 5: self.initialConnectionWindow = try reader.read(ProtobufUInt32.self, tag)
                case 6: self.maxHeaderSize = try reader.read(ProtobufUInt32.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufUInt32.self, self.protocolVersion, field: 1)
            writer.writeSingular(ProtobufUInt32.self, self.maxFrameSize, field: 2)
            writer.writeSingular(ProtobufUInt32.self, self.maxConcurrentStreams, field: 3)
            writer.writeSingular(ProtobufUInt32.self, self.initialStreamWindow, field: 4)
            writer.writeSingular(ProtobufUInt32.self, self.initialConnectionWindow, field: 5)
            writer.writeSingular(ProtobufUInt32.self, self.maxHeaderSize, field: 6)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("protocolVersion", self.protocolVersion, isDefault: self.protocolVersion == 0)
            d.value("maxFrameSize", self.maxFrameSize, isDefault: self.maxFrameSize == 0)
            d.value("maxConcurrentStreams", self.maxConcurrentStreams, isDefault: self.maxConcurrentStreams == 0)
            d.value("initialStreamWindow", self.initialStreamWindow, isDefault: self.initialStreamWindow == 0)
            d.value("initialConnectionWindow", self.initialConnectionWindow, isDefault: self.initialConnectionWindow == 0)
            d.value("maxHeaderSize", self.maxHeaderSize, isDefault: self.maxHeaderSize == 0)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// One call metadata entry (a gRPC header or trailer).
    public struct MetadataEntry: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.MetadataEntry"

        /// Lower-case ASCII name, e.g. `authorization`. Names ending in `-bin`
        /// carry binary values.
        public var key: String = ""

        /// The value; UTF-8 text unless the key ends in `-bin`.
        public var value: [UInt8] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.key = try reader.read(ProtobufString.self, tag)
                case 2: self.value = try reader.read(ProtobufBytes.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.key, field: 1)
            writer.writeSingular(ProtobufBytes.self, self.value, field: 2)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("key", self.key)
            d.bytes("value", self.value)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The payload of a CALL_START frame: opens a call.
    public struct CallStart: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CallStart"

        /// The method path, `/<package>.<Service>/<Method>`, e.g.
        /// `/readergateway.v1.Sdk/ConnectReader`.
        public var method: String = ""

        /// The call's timeout relative to when the server receives this frame, in
        /// milliseconds (gRPC's `grpc-timeout`); 0 for none.
        public var timeoutMs: UInt64 = 0

        /// Call metadata, in order; keys may repeat.
        public var metadata: [ReaderGatewayV1.MetadataEntry] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.method = try reader.read(ProtobufString.self, tag)
                case 2: self.timeoutMs = try reader.read(ProtobufUInt64.self, tag)
                case 3: try reader.readRepeatedMessage(tag, into: &self.metadata)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufString.self, self.method, field: 1)
            writer.writeSingular(ProtobufUInt64.self, self.timeoutMs, field: 2)
            for value in self.metadata { writer.writeMessage(value, field: 3) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.string("method", self.method)
            d.value("timeoutMs", self.timeoutMs, isDefault: self.timeoutMs == 0)
            d.messages("metadata", self.metadata)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The payload of an END_OF_CALL frame: the server's last word on a call.
    public struct CallEnd: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.CallEnd"

        /// The outcome; code OK for success.
        public var status: ReaderGatewayV1.Status? = nil

        /// Trailing metadata.
        public var trailers: [ReaderGatewayV1.MetadataEntry] = []

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.status = try reader.readMessage(tag, as: ReaderGatewayV1.Status.self)
                case 2: try reader.readRepeatedMessage(tag, into: &self.trailers)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let value = self.status { writer.writeMessage(value, field: 1) }
            for value in self.trailers { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.message("status", self.status)
            d.messages("trailers", self.trailers)
            d.unknown(self.unknownFields)
            return d.text
        }
    }

    /// The payload of a GOAWAY frame: the sender starts no more calls and accepts
    /// none above last_stream_id.
    public struct GoAway: ProtobufMessage {
        public static let protoMessageName = "readergateway.v1.GoAway"

        /// The highest stream id the sender processed or may still process; calls
        /// above it were not processed and may be retried on a new connection.
        public var lastStreamID: UInt32 = 0

        /// Why (GOING_AWAY for a graceful shutdown, a protocol reason for an error).
        public var status: ReaderGatewayV1.Status? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.lastStreamID = try reader.read(ProtobufUInt32.self, tag)
                case 2: self.status = try reader.readMessage(tag, as: ReaderGatewayV1.Status.self)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufUInt32.self, self.lastStreamID, field: 1)
            if let value = self.status { writer.writeMessage(value, field: 2) }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("lastStreamID", self.lastStreamID, isDefault: self.lastStreamID == 0)
            d.message("status", self.status)
            d.unknown(self.unknownFields)
            return d.text
        }
    }
}
