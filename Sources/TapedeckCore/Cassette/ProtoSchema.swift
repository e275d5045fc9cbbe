import Foundation

/// The messages of gRPC services as a descriptor set describes them (`protoc
/// --descriptor_set_out --include_imports`, given to the CLI as `--proto-descriptor-set`), so
/// recorded messages read as JSON in diagnoses, the inspector and `tapedeck inspect`.
///
/// The cassette always keeps the bytes: the schema only changes how messages are shown and
/// compared (a request's messages are matched as JSON by value when all of them read). The
/// tooling builds a schema from swift-protobuf's descriptor types; the reader of the wire format
/// is here, in ``json(_:type:)``.
public struct ProtoSchema: Sendable, Hashable {
    /// A field of a message.
    public struct Field: Sendable, Hashable {
        /// Its number on the wire.
        public var number: Int
        /// Its name in JSON (the descriptor's `json_name`).
        public var name: String
        /// Its type.
        public var type: FieldType
        /// Whether it repeats (a list, or a map when its type is a map entry).
        public var isRepeated: Bool
        /// The fully qualified message or enum type (`.package.Name`), for those two types.
        public var typeName: String?

        /// Creates a field.
        public init(number: Int, name: String, type: FieldType, isRepeated: Bool = false, typeName: String? = nil) {
            self.number = number
            self.name = name
            self.type = type
            self.isRepeated = isRepeated
            self.typeName = typeName
        }
    }

    /// The types of fields, numbered as in `descriptor.proto`.
    public enum FieldType: Int, Sendable, Hashable {
        case double = 1, float, int64, uint64, int32, fixed64, fixed32, bool, string, group, message, bytes, uint32, enumeration,
             sfixed32, sfixed64, sint32, sint64
    }

    /// A method's request and response types.
    public struct Method: Sendable, Hashable {
        /// The request's message type (`.package.Name`).
        public var input: String
        /// The response's message type.
        public var output: String

        /// Creates a method.
        public init(input: String, output: String) {
            self.input = input
            self.output = output
        }
    }

    /// The fields of each message type, by fully qualified name (`.package.Name`).
    public var messages: [String: [Field]] = [:]
    /// The message types that are map entries (`key` = 1, `value` = 2), shown as JSON objects.
    public var mapEntries: Set<String> = []
    /// The value names of each enum type, by number.
    public var enums: [String: [Int: String]] = [:]
    /// The methods by gRPC path, `/package.Service/Method`.
    public var methods: [String: Method] = [:]

    /// An empty schema.
    public init() {}

    /// A message of the method at `path` as JSON; nil when the schema does not know the method or
    /// the bytes are not such a message.
    public func json(_ message: Data, path: String, isRequest: Bool) -> JSONValue? {
        guard let method = methods[path] else { return nil }
        return json(message, type: isRequest ? method.input : method.output)
    }

    /// The messages of a gRPC body (length-prefixed) of the method at `path` as a JSON array;
    /// nil unless every one reads.
    public func json(grpcBody data: Data, path: String, isRequest: Bool) -> JSONValue? {
        guard methods[path] != nil, let messages = GRPCMessage.split(data) else { return nil }
        var values: [JSONValue] = []
        for message in messages {
            guard let value = json(message.bytes, path: path, isRequest: isRequest) else { return nil }
            values.append(value)
        }
        return .array(values)
    }

    /// A message of `type` as JSON, by proto3's JSON mapping: 64-bit integers as strings, bytes
    /// in base64, enums by name, maps as objects. A field the schema does not know is shown by
    /// number (`"#7"`) with its raw value. Nil when the bytes are not such a message.
    public func json(_ message: Data, type: String) -> JSONValue? {
        guard messages[type] != nil else { return nil }
        var reader = WireReader(bytes: [UInt8](message)[...])
        return try? object(&reader, type: type, depth: 0)
    }

    /// Messages nest at most this deep, so a hostile message cannot exhaust the stack.
    private static let maximumDepth = 64

    private func object(_ reader: inout WireReader, type: String, depth: Int) throws(WireReader.Malformed) -> JSONValue {
        guard depth < Self.maximumDepth, let fields = messages[type] else { throw .init() }
        let byNumber = Dictionary(fields.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        var members: [String: JSONValue] = [:]
        while !reader.isAtEnd {
            let key = try reader.varint()
            let number = Int(key >> 3), wireType = Int(key & 7)
            guard number > 0 else { throw .init() }
            guard let field = byNumber[number] else {
                members["#\(number)"] = try reader.raw(wireType: wireType)
                continue
            }
            let values = try self.values(&reader, field: field, wireType: wireType, depth: depth)
            if field.isRepeated {
                if let entry = field.typeName, mapEntries.contains(entry) {
                    var map: [String: JSONValue] = [:]
                    if case .object(let earlier)? = members[field.name] { map = earlier }
                    for value in values {
                        guard case .object(let pair) = value else { continue }
                        map[pair["key"].map(Self.mapKey) ?? ""] = pair["value"] ?? .null
                    }
                    members[field.name] = .object(map)
                } else {
                    var list: [JSONValue] = []
                    if case .array(let earlier)? = members[field.name] { list = earlier }
                    list += values
                    members[field.name] = .array(list)
                }
            } else if let last = values.last {
                members[field.name] = last
            }
        }
        return .object(members)
    }

    /// The values one field's entry holds: one, or several for a packed repeated scalar.
    private func values(_ reader: inout WireReader, field: Field, wireType: Int, depth: Int) throws(WireReader.Malformed) -> [JSONValue] {
        switch (field.type, wireType) {
        case (.message, 2):
            var inner = WireReader(bytes: try reader.lengthDelimited())
            return [try object(&inner, type: field.typeName ?? "", depth: depth + 1)]
        case (.string, 2):
            guard let text = String(validatingUTF8Data: Data(try reader.lengthDelimited())) else { throw .init() }
            return [.string(text)]
        case (.bytes, 2):
            return [.string(Data(try reader.lengthDelimited()).base64EncodedString())]
        case (_, 2) where field.isRepeated:
            // Packed scalars: their values one after the other.
            var packed = WireReader(bytes: try reader.lengthDelimited())
            var values: [JSONValue] = []
            while !packed.isAtEnd { values.append(try scalar(&packed, field: field)) }
            return values
        default:
            guard wireType == field.type.wireType else { throw .init() }
            return [try scalar(&reader, field: field)]
        }
    }

    private func scalar(_ reader: inout WireReader, field: Field) throws(WireReader.Malformed) -> JSONValue {
        switch field.type {
        case .double: return .double(Double(bitPattern: try reader.fixed(8)))
        case .float: return .double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: try reader.fixed(4)))))
        case .int64: return .string(String(Int64(bitPattern: try reader.varint())))
        case .uint64: return .string(String(try reader.varint()))
        case .int32: return .integer(Int64(Int32(truncatingIfNeeded: try reader.varint())))
        case .fixed64: return .string(String(try reader.fixed(8)))
        case .fixed32: return .integer(Int64(try reader.fixed(4)))
        case .bool: return .bool(try reader.varint() != 0)
        case .uint32: return .integer(Int64(UInt32(truncatingIfNeeded: try reader.varint())))
        case .enumeration:
            let number = Int(Int32(truncatingIfNeeded: try reader.varint()))
            return field.typeName.flatMap { enums[$0]?[number] }.map(JSONValue.string) ?? .integer(Int64(number))
        case .sfixed32: return .integer(Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: try reader.fixed(4)))))
        case .sfixed64: return .string(String(Int64(bitPattern: try reader.fixed(8))))
        case .sint32, .sint64:
            let raw = try reader.varint()
            let value = Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
            return field.type == .sint32 ? .integer(value) : .string(String(value))
        case .string, .bytes, .message, .group: throw .init()
        }
    }

    /// A map key as a JSON object's member name.
    private static func mapKey(_ key: JSONValue) -> String {
        switch key {
        case .string(let text): text
        case .integer(let number): String(number)
        case .bool(let flag): String(flag)
        default: key.summary
        }
    }
}

extension ProtoSchema.FieldType {
    /// The wire type a single value of this type is written with.
    var wireType: Int {
        switch self {
        case .double, .fixed64, .sfixed64: 1
        case .float, .fixed32, .sfixed32: 5
        case .string, .bytes, .message: 2
        case .group: 3
        default: 0
        }
    }
}

/// Reads protobuf's wire format (varints, fixed-width and length-delimited values); throws on
/// bytes that end early or run past a limit.
private struct WireReader {
    struct Malformed: Error {}

    var bytes: ArraySlice<UInt8>

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func varint() throws(Malformed) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard let byte = bytes.popFirst() else { throw Malformed() }
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return value }
        }
        throw Malformed()
    }

    mutating func fixed(_ size: Int) throws(Malformed) -> UInt64 {
        guard bytes.count >= size else { throw Malformed() }
        var value: UInt64 = 0
        for (index, byte) in bytes.prefix(size).enumerated() { value |= UInt64(byte) << UInt64(8 * index) }
        bytes = bytes.dropFirst(size)
        return value
    }

    mutating func lengthDelimited() throws(Malformed) -> ArraySlice<UInt8> {
        let length = try varint()
        guard length <= UInt64(bytes.count) else { throw Malformed() }
        let value = bytes.prefix(Int(length))
        bytes = bytes.dropFirst(Int(length))
        return value
    }

    /// A value of a field the schema does not know: a number, or base64 for bytes.
    mutating func raw(wireType: Int) throws(Malformed) -> JSONValue {
        switch wireType {
        case 0: return .string(String(try varint()))
        case 1: return .string(String(try fixed(8)))
        case 2: return .string(Data(try lengthDelimited()).base64EncodedString())
        case 5: return .integer(Int64(try fixed(4)))
        default: throw Malformed()
        }
    }
}
