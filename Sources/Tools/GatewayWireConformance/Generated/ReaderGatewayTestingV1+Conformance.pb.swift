// Generated from readergateway/testing/v1/conformance.proto by proto/tools/generate_swift.py. DO NOT EDIT.
// Regenerate with `make generate-proto`; `make test` fails when this file drifts.

// swiftlint:disable all
import GatewayWire

extension ReaderGatewayTestingV1 {

    /// Every kind of field.
    public struct AllTypes: ProtobufMessage {
        public static let protoMessageName = "readergateway.testing.v1.AllTypes"

        /// The `choice` oneof.
        public indirect enum Choice: Equatable, Sendable {
            case choiceUint32(UInt32)
            case choiceString(String)
            case choiceChild(ReaderGatewayTestingV1.AllTypes)
            case choiceBytes([UInt8])
        }

        public var int32Value: Int32 = 0

        public var int64Value: Int64 = 0

        public var uint32Value: UInt32 = 0

        public var uint64Value: UInt64 = 0

        public var sint32Value: Int32 = 0

        public var sint64Value: Int64 = 0

        public var fixed32Value: UInt32 = 0

        public var fixed64Value: UInt64 = 0

        public var sfixed32Value: Int32 = 0

        public var sfixed64Value: Int64 = 0

        public var floatValue: Float = 0

        public var doubleValue: Double = 0

        public var boolValue: Bool = false

        public var stringValue: String = ""

        public var bytesValue: [UInt8] = []

        public var color: ReaderGatewayTestingV1.AllTypes.Color = ReaderGatewayTestingV1.AllTypes.Color(rawValue: 0)

        public var child: ReaderGatewayTestingV1.AllTypes? {
            get { _child?.value }
            set { _child = newValue.map(ProtobufBox.init) }
        }
        private var _child: ProtobufBox<ReaderGatewayTestingV1.AllTypes>? = nil

        public var reader: ReaderGatewayV1.Reader? = nil

        public var repeatedInt32: [Int32] = []

        public var repeatedInt64: [Int64] = []

        public var repeatedUint32: [UInt32] = []

        public var repeatedUint64: [UInt64] = []

        public var repeatedSint32: [Int32] = []

        public var repeatedSint64: [Int64] = []

        public var repeatedFixed32: [UInt32] = []

        public var repeatedFixed64: [UInt64] = []

        public var repeatedSfixed32: [Int32] = []

        public var repeatedSfixed64: [Int64] = []

        public var repeatedFloat: [Float] = []

        public var repeatedDouble: [Double] = []

        public var repeatedBool: [Bool] = []

        public var repeatedString: [String] = []

        public var repeatedBytes: [[UInt8]] = []

        public var repeatedColor: [ReaderGatewayTestingV1.AllTypes.Color] = []

        public var repeatedChild: [ReaderGatewayTestingV1.AllTypes] = []

        public var unpackedInt32: [Int32] = []

        public var optionalInt32: Int32? = nil

        public var optionalString: String? = nil

        public var optionalColor: ReaderGatewayTestingV1.AllTypes.Color? = nil

        public var choice: Choice? = nil

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.int32Value = try reader.read(ProtobufInt32.self, tag)
                case 2: self.int64Value = try reader.read(ProtobufInt64.self, tag)
                case 3: self.uint32Value = try reader.read(ProtobufUInt32.self, tag)
                case 4: self.uint64Value = try reader.read(ProtobufUInt64.self, tag)
                case 5: self.sint32Value = try reader.read(ProtobufSInt32.self, tag)
                case 6: self.sint64Value = try reader.read(ProtobufSInt64.self, tag)
                case 7: self.fixed32Value = try reader.read(ProtobufFixed32.self, tag)
                case 8: self.fixed64Value = try reader.read(ProtobufFixed64.self, tag)
                case 9: self.sfixed32Value = try reader.read(ProtobufSFixed32.self, tag)
                case 10: self.sfixed64Value = try reader.read(ProtobufSFixed64.self, tag)
                case 11: self.floatValue = try reader.read(ProtobufFloat.self, tag)
                case 12: self.doubleValue = try reader.read(ProtobufDouble.self, tag)
                case 13: self.boolValue = try reader.read(ProtobufBool.self, tag)
                case 14: self.stringValue = try reader.read(ProtobufString.self, tag)
                case 15: self.bytesValue = try reader.read(ProtobufBytes.self, tag)
                case 16: self.color = try reader.read(ProtobufEnumField<ReaderGatewayTestingV1.AllTypes.Color>.self, tag)
                case 17: self.child = try reader.readMessage(tag, as: ReaderGatewayTestingV1.AllTypes.self)
                case 18: self.reader = try reader.readMessage(tag, as: ReaderGatewayV1.Reader.self)
                case 21: try reader.readRepeated(ProtobufInt32.self, tag, into: &self.repeatedInt32)
                case 22: try reader.readRepeated(ProtobufInt64.self, tag, into: &self.repeatedInt64)
                case 23: try reader.readRepeated(ProtobufUInt32.self, tag, into: &self.repeatedUint32)
                case 24: try reader.readRepeated(ProtobufUInt64.self, tag, into: &self.repeatedUint64)
                case 25: try reader.readRepeated(ProtobufSInt32.self, tag, into: &self.repeatedSint32)
                case 26: try reader.readRepeated(ProtobufSInt64.self, tag, into: &self.repeatedSint64)
                case 27: try reader.readRepeated(ProtobufFixed32.self, tag, into: &self.repeatedFixed32)
                case 28: try reader.readRepeated(ProtobufFixed64.self, tag, into: &self.repeatedFixed64)
                case 29: try reader.readRepeated(ProtobufSFixed32.self, tag, into: &self.repeatedSfixed32)
                case 30: try reader.readRepeated(ProtobufSFixed64.self, tag, into: &self.repeatedSfixed64)
                case 31: try reader.readRepeated(ProtobufFloat.self, tag, into: &self.repeatedFloat)
                case 32: try reader.readRepeated(ProtobufDouble.self, tag, into: &self.repeatedDouble)
                case 33: try reader.readRepeated(ProtobufBool.self, tag, into: &self.repeatedBool)
                case 34: try reader.readRepeated(ProtobufString.self, tag, into: &self.repeatedString)
                case 35: try reader.readRepeated(ProtobufBytes.self, tag, into: &self.repeatedBytes)
                case 36: try reader.readRepeated(ProtobufEnumField<ReaderGatewayTestingV1.AllTypes.Color>.self, tag, into: &self.repeatedColor)
                case 37: try reader.readRepeatedMessage(tag, into: &self.repeatedChild)
                case 38: try reader.readRepeated(ProtobufInt32.self, tag, into: &self.unpackedInt32)
                case 41: self.optionalInt32 = try reader.read(ProtobufInt32.self, tag)
                case 42: self.optionalString = try reader.read(ProtobufString.self, tag)
                case 43: self.optionalColor = try reader.read(ProtobufEnumField<ReaderGatewayTestingV1.AllTypes.Color>.self, tag)
                case 51: self.choice = .choiceUint32(try reader.read(ProtobufUInt32.self, tag))
                case 52: self.choice = .choiceString(try reader.read(ProtobufString.self, tag))
                case 53: self.choice = .choiceChild(try reader.readMessage(tag, as: ReaderGatewayTestingV1.AllTypes.self))
                case 54: self.choice = .choiceBytes(try reader.read(ProtobufBytes.self, tag))
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufInt32.self, self.int32Value, field: 1)
            writer.writeSingular(ProtobufInt64.self, self.int64Value, field: 2)
            writer.writeSingular(ProtobufUInt32.self, self.uint32Value, field: 3)
            writer.writeSingular(ProtobufUInt64.self, self.uint64Value, field: 4)
            writer.writeSingular(ProtobufSInt32.self, self.sint32Value, field: 5)
            writer.writeSingular(ProtobufSInt64.self, self.sint64Value, field: 6)
            writer.writeSingular(ProtobufFixed32.self, self.fixed32Value, field: 7)
            writer.writeSingular(ProtobufFixed64.self, self.fixed64Value, field: 8)
            writer.writeSingular(ProtobufSFixed32.self, self.sfixed32Value, field: 9)
            writer.writeSingular(ProtobufSFixed64.self, self.sfixed64Value, field: 10)
            writer.writeSingular(ProtobufFloat.self, self.floatValue, field: 11)
            writer.writeSingular(ProtobufDouble.self, self.doubleValue, field: 12)
            writer.writeSingular(ProtobufBool.self, self.boolValue, field: 13)
            writer.writeSingular(ProtobufString.self, self.stringValue, field: 14)
            writer.writeSingular(ProtobufBytes.self, self.bytesValue, field: 15)
            writer.writeSingular(ProtobufEnumField<ReaderGatewayTestingV1.AllTypes.Color>.self, self.color, field: 16)
            if let value = self.child { writer.writeMessage(value, field: 17) }
            if let value = self.reader { writer.writeMessage(value, field: 18) }
            writer.writePacked(ProtobufInt32.self, self.repeatedInt32, field: 21)
            writer.writePacked(ProtobufInt64.self, self.repeatedInt64, field: 22)
            writer.writePacked(ProtobufUInt32.self, self.repeatedUint32, field: 23)
            writer.writePacked(ProtobufUInt64.self, self.repeatedUint64, field: 24)
            writer.writePacked(ProtobufSInt32.self, self.repeatedSint32, field: 25)
            writer.writePacked(ProtobufSInt64.self, self.repeatedSint64, field: 26)
            writer.writePacked(ProtobufFixed32.self, self.repeatedFixed32, field: 27)
            writer.writePacked(ProtobufFixed64.self, self.repeatedFixed64, field: 28)
            writer.writePacked(ProtobufSFixed32.self, self.repeatedSfixed32, field: 29)
            writer.writePacked(ProtobufSFixed64.self, self.repeatedSfixed64, field: 30)
            writer.writePacked(ProtobufFloat.self, self.repeatedFloat, field: 31)
            writer.writePacked(ProtobufDouble.self, self.repeatedDouble, field: 32)
            writer.writePacked(ProtobufBool.self, self.repeatedBool, field: 33)
            writer.writeRepeated(ProtobufString.self, self.repeatedString, field: 34)
            writer.writeRepeated(ProtobufBytes.self, self.repeatedBytes, field: 35)
            writer.writePacked(ProtobufEnumField<ReaderGatewayTestingV1.AllTypes.Color>.self, self.repeatedColor, field: 36)
            for value in self.repeatedChild { writer.writeMessage(value, field: 37) }
            writer.writeRepeated(ProtobufInt32.self, self.unpackedInt32, field: 38)
            if let value = self.optionalInt32 { writer.writeAlways(ProtobufInt32.self, value, field: 41) }
            if let value = self.optionalString { writer.writeAlways(ProtobufString.self, value, field: 42) }
            if let value = self.optionalColor { writer.writeAlways(ProtobufEnumField<ReaderGatewayTestingV1.AllTypes.Color>.self, value, field: 43) }
            switch self.choice {
            case .choiceUint32(let value)?: writer.writeAlways(ProtobufUInt32.self, value, field: 51)
            case .choiceString(let value)?: writer.writeAlways(ProtobufString.self, value, field: 52)
            case .choiceChild(let value)?: writer.writeMessage(value, field: 53)
            case .choiceBytes(let value)?: writer.writeAlways(ProtobufBytes.self, value, field: 54)
            case nil: break
            }
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("int32Value", self.int32Value, isDefault: self.int32Value == 0)
            d.value("int64Value", self.int64Value, isDefault: self.int64Value == 0)
            d.value("uint32Value", self.uint32Value, isDefault: self.uint32Value == 0)
            d.value("uint64Value", self.uint64Value, isDefault: self.uint64Value == 0)
            d.value("sint32Value", self.sint32Value, isDefault: self.sint32Value == 0)
            d.value("sint64Value", self.sint64Value, isDefault: self.sint64Value == 0)
            d.value("fixed32Value", self.fixed32Value, isDefault: self.fixed32Value == 0)
            d.value("fixed64Value", self.fixed64Value, isDefault: self.fixed64Value == 0)
            d.value("sfixed32Value", self.sfixed32Value, isDefault: self.sfixed32Value == 0)
            d.value("sfixed64Value", self.sfixed64Value, isDefault: self.sfixed64Value == 0)
            d.value("floatValue", self.floatValue, isDefault: self.floatValue == 0)
            d.value("doubleValue", self.doubleValue, isDefault: self.doubleValue == 0)
            d.value("boolValue", self.boolValue, isDefault: !self.boolValue)
            d.string("stringValue", self.stringValue)
            d.bytes("bytesValue", self.bytesValue)
            d.value("color", self.color, isDefault: self.color.rawValue == 0)
            d.message("child", self.child)
            d.message("reader", self.reader)
            d.values("repeatedInt32", self.repeatedInt32)
            d.values("repeatedInt64", self.repeatedInt64)
            d.values("repeatedUint32", self.repeatedUint32)
            d.values("repeatedUint64", self.repeatedUint64)
            d.values("repeatedSint32", self.repeatedSint32)
            d.values("repeatedSint64", self.repeatedSint64)
            d.values("repeatedFixed32", self.repeatedFixed32)
            d.values("repeatedFixed64", self.repeatedFixed64)
            d.values("repeatedSfixed32", self.repeatedSfixed32)
            d.values("repeatedSfixed64", self.repeatedSfixed64)
            d.values("repeatedFloat", self.repeatedFloat)
            d.values("repeatedDouble", self.repeatedDouble)
            d.values("repeatedBool", self.repeatedBool)
            d.strings("repeatedString", self.repeatedString)
            d.values("repeatedBytes", self.repeatedBytes.map { "\($0.count) bytes" })
            d.values("repeatedColor", self.repeatedColor)
            d.messages("repeatedChild", self.repeatedChild)
            d.values("unpackedInt32", self.unpackedInt32)
            if let value = self.optionalInt32 { d.value("optionalInt32", value, isDefault: false) }
            if let value = self.optionalString { d.string("optionalString", value) }
            if let value = self.optionalColor { d.value("optionalColor", value, isDefault: false) }
            switch self.choice {
            case .choiceUint32(let value)?: d.value("choiceUint32", value, isDefault: false)
            case .choiceString(let value)?: d.string("choiceString", value)
            case .choiceChild(let value)?: d.message("choiceChild", value)
            case .choiceBytes(let value)?: d.bytes("choiceBytes", value)
            case nil: break
            }
            d.unknown(self.unknownFields)
            return d.text
        }

        /// An enum with a negative value.
        public struct Color: ProtobufEnum {
            public var rawValue: Int32
            public init(rawValue: Int32) { self.rawValue = rawValue }
            public static let unspecified = Color(rawValue: 0)
            public static let red = Color(rawValue: 1)
            public static let green = Color(rawValue: 2)
            public static let negative = Color(rawValue: -1)
            /// Every value this version knows, in declaration order.
            public static let knownValues: [Color] = [.unspecified, .red, .green, .negative]
            /// The value's name in the .proto file, or nil for a value this version does not know.
            public var protoName: String? {
                switch rawValue {
                case 0: "COLOR_UNSPECIFIED"
                case 1: "COLOR_RED"
                case 2: "COLOR_GREEN"
                case -1: "COLOR_NEGATIVE"
                default: nil
                }
            }
        }
    }

    /// A message with only some of AllTypes' fields: decoding AllTypes bytes as
    /// Subset leaves the rest as unknown fields, which must survive re-encoding.
    public struct Subset: ProtobufMessage {
        public static let protoMessageName = "readergateway.testing.v1.Subset"

        public var int32Value: Int32 = 0

        public var stringValue: String = ""

        /// Fields this version does not know, kept as raw bytes and written back on encode.
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtobufReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.fieldNumber {
                case 1: self.int32Value = try reader.read(ProtobufInt32.self, tag)
                case 14: self.stringValue = try reader.read(ProtobufString.self, tag)
                default: try reader.skipField(tag, preservingInto: &self.unknownFields)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeSingular(ProtobufInt32.self, self.int32Value, field: 1)
            writer.writeSingular(ProtobufString.self, self.stringValue, field: 14)
            writer.writeRaw(self.unknownFields)
        }

        /// The fields that are set, secrets redacted (ProtobufDescription).
        public var description: String {
            var d = ProtobufDescription(Self.protoMessageName)
            d.value("int32Value", self.int32Value, isDefault: self.int32Value == 0)
            d.string("stringValue", self.stringValue)
            d.unknown(self.unknownFields)
            return d.text
        }
    }
}
